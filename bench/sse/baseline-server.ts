import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The baseline: the least a node:http server can do for the same fan-out, the way Vigil does it.
 * `GET /events` opens a stream (headers and a `:ping`); `POST /trigger` wraps its JSON body in an
 * event like Vigil's, serialises and frames it once as one HTTP/1.1 chunk and writes that chunk
 * to every open stream's socket (no `res.write`, which queues size line, data and CRLF apart).
 * What it takes over the C floor is what Node's socket layer takes; what Vigil takes over it is Vigil's.
 */
const streams = new Set<ServerResponse>();
let seq = 0;

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/events') {
    res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' });
    res.write(':ping\n\n');
    streams.add(res);
    res.on('close', () => streams.delete(res));
    return;
  }
  if (req.method === 'POST' && req.url === '/trigger') {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      seq++;
      const event = { instance: seq.toString(16).padStart(12, '0'), version: 0, type: 'REGISTERED', timestamp: new Date().toISOString(), registration: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown };
      // Bytes, not a string: a string would be encoded again for each stream.
      const frame = Buffer.from(`id: ${seq}\ndata: ${JSON.stringify(event)}\n\n`);
      const chunk = Buffer.concat([Buffer.from(`${frame.length.toString(16)}\r\n`), frame, Buffer.from('\r\n')]);
      for (const stream of streams) stream.socket?.write(chunk);
      res.writeHead(201, { 'content-type': 'application/json' }).end('{}');
    });
    return;
  }
  res.writeHead(404).end();
});

server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
