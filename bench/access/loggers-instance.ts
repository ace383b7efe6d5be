import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The instance behind the audit benchmark's proxies, in its own process: an index, health, and `POST /loggers/ROOT` answering 204. */
const ACTUATOR = 'application/vnd.spring-boot.actuator.v3+json';
const server = createServer((req, res) => {
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/actuator`;
  req.resume();
  switch (`${req.method} ${req.url}`) {
    case 'GET /actuator':
      res.writeHead(200, { 'content-type': ACTUATOR }).end(JSON.stringify({ _links: { self: { href: base }, health: { href: `${base}/health` }, loggers: { href: `${base}/loggers` } } }));
      return;
    case 'GET /actuator/health':
      res.writeHead(200, { 'content-type': ACTUATOR }).end('{"status":"UP"}');
      return;
    case 'POST /actuator/loggers/ROOT':
      req.on('end', () => res.writeHead(204).end());
      return;
    default:
      res.writeHead(404).end();
  }
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
