import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Agent, stream } from 'undici';

/**
 * The first baseline: the least a Node pass-through proxy can do with undici, in a few lines
 * (`stream` writes the instance's body straight into the response). No routing, no checks, no
 * header policy beyond dropping hop-by-hop headers: the practical ceiling for Vigil's proxy.
 */
const upstream = process.argv[2]!;
const agent = new Agent({ bodyTimeout: 0 });
const HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'proxy-authorization', 'proxy-authenticate']);
const strip = (headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>) => {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined && !HOP.has(name)) kept[name] = value;
  return kept;
};

const server = createServer((req, res) => {
  const withBody = req.method === 'POST' || req.method === 'PUT' || req.method === 'PATCH';
  stream(`${upstream}${req.url}`, { method: req.method as 'GET', headers: strip(req.headers), body: withBody ? req : null, dispatcher: agent },
    ({ statusCode, headers }) => {
      res.writeHead(statusCode, strip(headers));
      return res;
    },
  ).catch(() => {
    if (res.headersSent) res.destroy();
    else res.writeHead(502).end();
  });
});

server.listen(0, '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${(server.address() as AddressInfo).port}`));
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
