import { Agent, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import httpProxy from 'http-proxy';

/**
 * The second baseline: http-proxy, the proxy most Node users pick. `keep-alive` as the second
 * argument gives it a keep-alive agent (its README's advice for throughput); without it, it runs
 * as `createProxyServer({ target })` does by default: a new connection to the instance per request.
 */
const upstream = process.argv[2]!;
const keepAlive = process.argv[3] === 'keep-alive';
const proxy = httpProxy.createProxyServer({ target: upstream, ...(keepAlive ? { agent: new Agent({ keepAlive: true, maxSockets: 256 }) } : {}) });
proxy.on('error', (_error, _req, res) => {
  if ('writeHead' in res && !res.headersSent) res.writeHead(502).end();
  else res.destroy();
});

const server = createServer((req, res) => proxy.web(req, res));
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
