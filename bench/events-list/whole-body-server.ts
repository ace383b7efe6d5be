import { createServer, get } from 'node:http';
import type { AddressInfo } from 'node:net';
import { JsonArrayReader } from './array-reader.js';

/**
 * The baseline of bench/events-list: a bare node:http server holding the same events as the
 * daemon (read once from the daemon's `GET /instances/events`, given as argv[2]) that answers
 * the way Vigil did before the list was streamed (`http.sendJson`): one view object per event,
 * `JSON.stringify` of the whole array, then `res.end` with a content-length. Run with
 * `--expose-gc`, so what reading them left behind is collected before `/ready` answers.
 */
const source = process.argv[2];
if (!source) throw new Error('usage: whole-body-server.js <daemon url>');

/** Loaded after listening: startProcess waits only 30 s for the listening line, reading 2,000,000 events takes longer. */
const loaded = new Promise<unknown[]>((resolve, reject) => {
  const list: unknown[] = [];
  const reader = new JsonArrayReader((item) => list.push(item));
  get(`${source}/instances/events`, (res) => {
    if (res.statusCode !== 200) reject(new Error(`GET /instances/events: ${res.statusCode}`));
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => reader.feed(chunk));
    res.on('end', () => (reader.closed ? resolve(list) : reject(new Error('the array never closed'))));
    res.on('error', reject);
  }).on('error', reject);
}).then((list) => {
  (globalThis as { gc?: () => void }).gc?.();
  return list;
});
// An unloadable copy ends the process: the benchmark sees it exit instead of waiting.
loaded.catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});

const server = createServer((req, res) => {
  void loaded.then((events) => {
    if (req.url === '/ready') {
      res.writeHead(200, { 'content-type': 'text/plain' }).end(String(events.length));
      return;
    }
    // The old route: `sendJson(res, 200, instances.events().map(views.event))`, a fresh view per event.
    const text = JSON.stringify(events.map((event) => ({ ...(event as Record<string, unknown>) })));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
    // Each measurement starts from what the server holds, not from the last answer's garbage.
    res.on('finish', () => setImmediate(() => (globalThis as { gc?: () => void }).gc?.()));
  });
});
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
