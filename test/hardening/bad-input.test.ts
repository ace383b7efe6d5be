import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpError, PluginContext, VigilPlugin } from '../../core/plugin-api.js';
import { eventually } from '../support/http.js';
import { ADMIN, basic, startFullKernel, type FullKernel } from './support/full-kernel.js';
import { sendRaw, type RawResponse } from './support/raw-http.js';

/**
 * The bad inputs the fuzz suite found, each pinned as an explicit case: every one of them used
 * to end in a 500, a bare status line without the JSON error body, or no answer at all.
 */

const AUTH = `Authorization: ${basic(ADMIN.username, ADMIN.password)}\r\n`;

/** Records that a body is being read and what that ended in, so a test can await both. */
const outcomes: number[] = [];
let reading = false;
const bodyProbe = {
  name: 'body-probe',
  configKey: null,
  setup(ctx: PluginContext<unknown>) {
    ctx.http.route('POST', '/probe', async (req, res) => {
      reading = true;
      try {
        await ctx.http.readJson(req);
      } catch (error) {
        outcomes.push((error as HttpError).status ?? 500);
        throw error;
      }
      outcomes.push(200);
      ctx.http.sendJson(res, 200, {});
    });
  },
} as VigilPlugin<never>;

async function withKernel(run: (full: FullKernel) => Promise<void>): Promise<void> {
  const full = await startFullKernel({ 'log-level': 'debug' });
  try {
    await run(full);
    assert.equal(full.tk.logs().filter((line) => / error /.test(line)), [], 'nothing logged as a server error');
  } finally {
    await full.tk.stop();
  }
}

function assertJsonError(reply: RawResponse, status: number, message: RegExp, path: string): void {
  assert.is(reply.status, status, reply.body.toString());
  assert.is(reply.headers['content-type'], 'application/json');
  const body = JSON.parse(reply.body.toString()) as Record<string, unknown>;
  assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
  assert.is(body.status, status);
  assert.match(String(body.message), message);
  assert.is(body.path, path);
}

const send = (full: FullKernel, text: string | Buffer) => sendRaw(full.port, typeof text === 'string' ? Buffer.from(text) : text);

test('metadata nested 5,000 deep is a 400 naming the limit (it overflowed the stack: 500)', () => withKernel(async (full) => {
  const before = full.tk.kernel.registry.lastSeq;
  const body = `{"name":"deep","healthUrl":"http://127.0.0.1:9/h","metadata":${'{"a":'.repeat(5000)}"v"${'}'.repeat(5000)}}`;
  const reply = await send(full, `POST /instances HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
  assertJsonError(reply, 400, /^invalid registration: 'metadata' must not nest objects more than 32 levels deep$/, '/instances');
  assert.is(full.tk.kernel.registry.lastSeq, before);
  // 32 levels are still fine, and flattened to a dotted key.
  const ok = `{"name":"deep","healthUrl":"http://127.0.0.1:9/h","metadata":${'{"a":'.repeat(32)}"v"${'}'.repeat(32)}}`;
  const created = await send(full, `POST /instances HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n${AUTH}Content-Type: application/json\r\nContent-Length: ${ok.length}\r\n\r\n${ok}`);
  assert.is(created.status, 201);
  const id = (JSON.parse(created.body.toString()) as { id: string }).id;
  assert.equal(full.tk.kernel.registry.get(id)!.registration!.metadata, { [Array(32).fill('a').join('.')]: 'v' });
}));

test('requests Node refuses before routing get the JSON error body (they got a bare status line)', () => withKernel(async (full) => {
  const cases: [string | Buffer, number, RegExp][] = [
    [Buffer.concat([Buffer.from(`GET /instances HTTP/1.1\r\nHost: localhost\r\n${AUTH}X-Bad: a`), Buffer.from([0x01]), Buffer.from('b\r\n\r\n')]), 400, /^malformed HTTP request: Invalid header value char$/],
    [Buffer.concat([Buffer.from('GET /instances/a'), Buffer.from([0xe4]), Buffer.from(' HTTP/1.1\r\nHost: localhost\r\n\r\n')]), 400, /^malformed HTTP request: Invalid char in url path$/],
    ['G@T /instances HTTP/1.1\r\nHost: localhost\r\n\r\n', 400, /^malformed HTTP request: /],
    ['GET /instances HTTP/1.x\r\nHost: localhost\r\n\r\n', 400, /^malformed HTTP request: /],
    ['POST /instances HTTP/1.1\r\nHost: localhost\r\nContent-Length: abc\r\n\r\n', 400, /^malformed HTTP request: Invalid character in Content-Length$/],
    ['POST /instances HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400, /^malformed HTTP request: /],
    [`GET /instances HTTP/1.1\r\nHost: localhost\r\nX-Huge: ${'h'.repeat(17 * 1024)}\r\n\r\n`, 431, /^request headers are too large$/],
    ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, /^CONNECT is not supported/],
  ];
  for (const [bytes, status, message] of cases) assertJsonError(await send(full, bytes), status, message, '');
  assertJsonError(await send(full, `GET /instances?x=1 HTTP/1.1\r\n${AUTH}\r\n`), 400, /^the Host header is required in HTTP\/1\.1$/, '/instances');
  assertJsonError(await send(full, `GET /instances HTTP/1.1\r\nHost: localhost\r\nExpect: nonsense\r\n\r\n`), 417, /^unsupported Expect header "nonsense"/, '/instances');
  // HTTP/1.0 has no Host requirement.
  assert.is((await send(full, `GET /instances HTTP/1.0\r\n${AUTH}\r\n`)).status, 200);
}));

test('broken chunked framing while a body is read: the parser\'s 400, as JSON', () => withKernel(async (full) => {
  const chunked = (line: string) => send(full, `${line}\r\nHost: localhost\r\n${AUTH}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"nam\r\nZZ\r\nxx\r\n`);
  assertJsonError(await chunked('POST /instances HTTP/1.1'), 400, /^malformed HTTP request: Invalid character in chunk size$/, '');
  assert.is(full.tk.kernel.registry.list().length, 0);
}));

test('readJson turns a client that leaves mid-body into a 400, not an unhandled error', async () => {
  const { startTestKernel } = await import('../../bin/testing.js');
  const tk = await startTestKernel({ plugins: [bodyProbe] });
  try {
    outcomes.length = 0;
    const port = Number(new URL(tk.url).port);
    const { connect } = await import('node:net');
    const socket = connect(port, '127.0.0.1', () => socket.write('POST /probe HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":'));
    await eventually(() => reading, 'the route to start reading the body');
    socket.destroy();
    await eventually(() => outcomes.length > 0, 'the handler to finish');
    assert.equal(outcomes, [400]);
    assert.equal(tk.logs().filter((line) => / error /.test(line)), []);
  } finally {
    await tk.stop();
  }
});

test('HEAD on every stream form answers with the stream headers and ends (it never answered)', () => withKernel(async (full) => {
  const id = (await full.tk.kernel.registry.register({ name: 'app', healthUrl: 'http://127.0.0.1:9/h', managementUrl: null, serviceUrl: null, source: 'test', metadata: {} })).id;
  for (const [path, accept] of [['/instances/events', 'text/event-stream'], [`/instances/${id}`, 'text/event-stream'], [`/instances/${id}/events`, '*/*'],
    ['/applications', 'text/event-stream'], ['/applications/events', '*/*']] as const) {
    const reply = await sendRaw(full.port, Buffer.from(`HEAD ${path} HTTP/1.1\r\nHost: localhost\r\n${AUTH}Accept: ${accept}\r\n\r\n`), { head: true, timeoutMs: 5000 });
    assert.is(reply.status, 200, path);
    assert.is(reply.headers['content-type'], 'text/event-stream;charset=UTF-8', path);
  }
}));

test.run();
