import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * The instance behind every proxy in the benchmark, in its own process so it never shares an
 * event loop with what is measured: an actuator index, health, a ~4 KB `env` (the load's
 * endpoint) and a `heapdump` that produces `?bytes=N` bytes as fast as the reader takes them,
 * without ever holding more than one 64 KiB chunk.
 */
const CHUNK = Buffer.alloc(64 * 1024, 0x5a);
const ACTUATOR = 'application/vnd.spring-boot.actuator.v3+json';

function envBody(): string {
  const properties: Record<string, { value: string }> = {};
  for (let i = 0; i < 40; i++) properties[`bench.property.number-${i}`] = { value: `value-${i}-${'x'.repeat(40)}` };
  return JSON.stringify({
    activeProfiles: ['bench'],
    propertySources: [{ name: 'systemProperties', properties }],
  });
}

const ENV = envBody();

function streamBytes(res: ServerResponse, total: number): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': total });
  let left = total;
  const pump = (): void => {
    while (left > 0) {
      const chunk = left >= CHUNK.length ? CHUNK : CHUNK.subarray(0, left);
      left -= chunk.length;
      if (!res.write(chunk)) {
        res.once('drain', pump);
        return;
      }
    }
    res.end();
  };
  pump();
}

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://instance');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/actuator`;
  req.resume();
  switch (`${req.method} ${url.pathname}`) {
    case 'GET /actuator': {
      const links: Record<string, { href: string; templated: boolean }> = { self: { href: base, templated: false } };
      for (const id of ['health', 'env', 'heapdump']) links[id] = { href: `${base}/${id}`, templated: false };
      res.writeHead(200, { 'content-type': ACTUATOR }).end(JSON.stringify({ _links: links }));
      return;
    }
    case 'GET /actuator/health':
      res.writeHead(200, { 'content-type': ACTUATOR }).end('{"status":"UP"}');
      return;
    case 'GET /actuator/env':
      res.writeHead(200, { 'content-type': ACTUATOR, 'content-length': Buffer.byteLength(ENV) }).end(ENV);
      return;
    case 'GET /actuator/heapdump':
      streamBytes(res, Number(url.searchParams.get('bytes') ?? CHUNK.length));
      return;
    default:
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not Found"}');
  }
});

server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
