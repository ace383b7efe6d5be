import type { ServerResponse } from 'node:http';
import { appendVary, varyOnWrite } from '../../core/kits/runtime/index.js';
import type { Hook, HttpRoutes, VigilRequest } from '../../core/plugin-api.js';
import type { CorsPolicy } from './policy.js';

/**
 * The `pre` hook: answers preflights itself (before authentication, since browsers never send
 * credentials on a preflight) and decorates actual requests, which then go on to auth and routes.
 * Headers are set with `setHeader` so the route's own `writeHead` keeps them. Every response,
 * with or without an `Origin`, says it varies on `Origin`: whether it carries Allow-Origin does.
 */
export function corsHook(policy: () => CorsPolicy, http: Pick<HttpRoutes, 'sendError'>): Hook {
  return (req: VigilRequest, res: ServerResponse) => {
    varyOnWrite(res, 'Origin');
    const decision = policy().decide({
      method: req.method ?? 'GET',
      origin: header(req, 'origin'),
      requestMethod: header(req, 'access-control-request-method'),
      requestHeaders: header(req, 'access-control-request-headers'),
    });
    if (decision.kind === 'none') return;
    for (const [name, value] of Object.entries(decision.headers)) {
      if (name === 'vary') appendVary(res, value);
      else res.setHeader(name, value);
    }
    if (decision.kind === 'refused') {
      http.sendError(req, res, 403, decision.reason);
    } else if (decision.kind === 'preflight') {
      res.writeHead(204, { 'content-length': '0' });
      res.end();
    }
  };
}

function header(req: VigilRequest, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
