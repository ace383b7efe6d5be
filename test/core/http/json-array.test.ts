import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { sendJsonArray } from '../../../core/http/json-array.js';

let server: Server | undefined;

test.after.each(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A server answering every request with `sendJsonArray` of `items`; resolves with its port and a promise of the writer's end. */
async function serve(items: readonly number[]): Promise<{ port: number; finished: Promise<void> }> {
  let finish: () => void = () => undefined;
  const finished = new Promise<void>((resolve) => { finish = resolve; });
  server = createServer((_req, res) => {
    void sendJsonArray(res, 200, items, (n) => ({ n, text: 'x'.repeat(100) }), { 'x-extra': 'yes' }).then(finish);
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, finished };
}

test('a large array arrives whole and in order, as JSON with the given headers', async () => {
  const items = Array.from({ length: 20_000 }, (_, i) => i);
  const { port } = await serve(items);
  const { status, headers, body } = await new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: text }));
    }).on('error', reject).end();
  });
  assert.is(status, 200);
  assert.is(headers['content-type'], 'application/json');
  assert.is(headers['x-extra'], 'yes');
  assert.is(headers['transfer-encoding'], 'chunked');
  const parsed = JSON.parse(body) as { n: number; text: string }[];
  assert.equal(parsed.map((item) => item.n), items);
});

test('an empty array is []', async () => {
  const { port } = await serve([]);
  const body = await new Promise<string>((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      res.on('end', () => resolve(text));
    }).on('error', reject).end();
  });
  assert.is(body, '[]');
});

test('a client that goes away before reading ends the writer instead of leaving it waiting', async () => {
  const { port, finished } = await serve(Array.from({ length: 200_000 }, (_, i) => i));
  await new Promise<void>((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      // Read nothing: the socket fills, the writer waits for a drain; then the client leaves.
      res.pause();
      setImmediate(() => { req.destroy(); resolve(); });
    });
    req.on('error', () => undefined);
    req.end();
  });
  await finished;
});

test('a view that throws mid-array cuts the connection: the client never gets a body that parses', async () => {
  server = createServer((_req, res) => {
    void sendJsonArray(res, 200, Array.from({ length: 5_000 }, (_, i) => i), (n) => {
      if (n === 4_000) throw new Error('view failed');
      return { n, text: 'x'.repeat(100) };
    });
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const outcome = await new Promise<string>((resolve) => {
    request({ host: '127.0.0.1', port, path: '/' }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => { text += chunk.toString('utf8'); });
      res.on('error', (error: Error) => resolve(`error ${error.message} after ${text.length} chars`));
      res.on('end', () => resolve(`end ${text.length} chars`));
    }).on('error', (error) => resolve(`error ${error.message}`)).end();
  });
  assert.match(outcome, /^error /);
});

test.run();
