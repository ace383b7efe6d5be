import { request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PluginContext, VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';

const INSTANCES = 200;
const EVENTS_PER_INSTANCE = 100;
/** Each event's JSON is a little over 2 KB: 20,000 of them make a body of ~44 MB. */
const PADDING = 'x'.repeat(2_000);
/** What the server may hold for one response beyond what the kernel took: a piece (64 Ki characters), its chunk framing and the event that ended it. */
const SERVER_BUFFER_BOUND = 128 * 1024;
/** The client reads this much, then stops again. */
const READ_BURST = 8 * 1024 * 1024;

/** Hands the test the server's side of `GET /instances/events` through the public hook API. */
function capture(onResponse: (res: ServerResponse) => void): VigilPlugin<never> {
  return {
    name: 'capture',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.http.hook('pre', (req, res) => {
        if (req.path === '/instances/events') onResponse(res);
      });
    },
  } as VigilPlugin<never>;
}

/** 200 instances, each registered and re-registered 99 times with a new `metadata.v`: 100 events each. */
async function fill(tk: TestKernel): Promise<void> {
  for (let v = 0; v < EVENTS_PER_INSTANCE; v += 1) {
    for (let n = 0; n < INSTANCES; n += 1) {
      await tk.kernel.registry.register({
        name: `app-${n % 10}`,
        healthUrl: `http://10.0.${n >> 8}.${n & 255}:8080/actuator/health`,
        managementUrl: null,
        serviceUrl: null,
        source: 'http-api',
        metadata: { v: String(v), padding: PADDING },
      });
    }
  }
}

/**
 * Resolves once the server cannot write more of this response (or has written all of it): part
 * of a write is still its own (the kernel's buffers are full) and nothing was added to the socket
 * across a few turns of the event loop, each of which polls for I/O. Turns of the loop, not a clock.
 */
async function stalled(res: ServerResponse, socket: Socket): Promise<{ produced: number; pending: number }> {
  let last = -1;
  let still = 0;
  for (let turn = 0; turn < 1_000_000; turn += 1) {
    await new Promise((resolve) => setImmediate(resolve));
    const produced = socket.bytesWritten;
    still = produced === last && (socket.writableLength > 0 || res.writableEnded) ? still + 1 : 0;
    last = produced;
    if (still >= 5) return { produced, pending: socket.writableLength };
  }
  throw new Error(`the server never stalled; ${socket.bytesWritten} bytes written, ${socket.writableLength} pending`);
}

test('a client that stops reading holds the server to a bounded buffer; once it reads on, the whole array arrives', async () => {
  let served: ServerResponse | undefined;
  const tk = await startTestKernel({
    plugins: ['rest-api', capture((res) => { served = res; })],
    config: { 'log-level': 'warn', 'event-store': { 'max-events-per-instance': EVENTS_PER_INSTANCE } },
  });
  try {
    await fill(tk);
    const { port } = new URL(tk.url);
    const res = await new Promise<IncomingMessage>((resolve, reject) => {
      request({ host: '127.0.0.1', port, path: '/instances/events' }, resolve).on('error', reject).end();
    });
    // Read nothing yet: the client's buffers and the kernel's fill, then the server must wait.
    res.pause();
    assert.is(res.statusCode, 200);
    const socket = served!.socket!;

    const first = await stalled(served!, socket);
    const stalls = [first];
    const chunks: Buffer[] = [];
    let received = 0;
    await new Promise<void>((resolve, reject) => {
      let burst = 0;
      res.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        received += chunk.length;
        burst += chunk.length;
        if (burst < READ_BURST) return;
        // A slow reader: it stops again, and again the server must stop with a bounded buffer.
        burst = 0;
        res.pause();
        stalled(served!, socket).then((stall) => {
          stalls.push(stall);
          res.resume();
        }, reject);
      });
      res.on('end', resolve);
      res.on('error', reject);
      res.resume();
    });

    // The server stopped well before the end (the kernel holds a few MB at most here) ...
    assert.ok(first.produced < received / 2, `${first.produced} of ${received} bytes written before the client read any`);
    // ... and, at every stop, held no more than one piece of its own.
    assert.ok(stalls.length >= 4, `${stalls.length} stops`);
    for (const stall of stalls) assert.ok(stall.pending <= SERVER_BUFFER_BOUND, `${stall.pending} bytes held by the server at a stop`);

    const events = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { instance: string; version: number; type: string; registration: { metadata: { v: string } } }[];
    assert.is(events.length, INSTANCES * EVENTS_PER_INSTANCE);
    const versions = new Map<string, number>();
    for (const event of events) {
      const version = versions.get(event.instance) ?? 0;
      assert.is(event.version, version);
      assert.is(event.type, version === 0 ? 'REGISTERED' : 'REGISTRATION_UPDATED');
      assert.is(event.registration.metadata.v, String(version));
      versions.set(event.instance, version + 1);
    }
    assert.is(versions.size, INSTANCES);
  } finally {
    await tk.stop();
  }
});

test.run();
