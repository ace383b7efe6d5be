import type { ServerResponse } from 'node:http';
import { pipeline } from 'node:stream/promises';
import { HttpError, type HttpMethod, type PluginContext, type RouteHandler } from '../../core/plugin-api.js';
import { BODY_METHODS } from './body.js';
import { ClientGoneError, callUpstream } from './forward.js';
import { filterHeaders, upstreamHeaders } from './headers.js';
import { rawProxyPath } from './request-path.js';
import type { ProxyRuntime } from './runtime.js';
import { parseProxyPath } from './target-url.js';

/**
 * `/instances/:id/actuator/*`: one request to one endpoint of one instance, streamed both ways
 * with backpressure (the client's body goes up as it arrives, the instance's comes down as it
 * arrives), so a multi-GB heapdump passes through in constant memory.
 */
export function instanceProxy(ctx: PluginContext<unknown>, runtime: ProxyRuntime): RouteHandler {
  const { config, ignored, resolver, log } = runtime;
  return async (req, res) => {
    const id = req.params.id!;
    const instance = ctx.instances.get(id);
    if (!instance) throw new HttpError(404, `instance ${id} not found`);
    const raw = rawProxyPath(req.originalUrl, ctx.http.contextPath);
    const target = await resolver.resolve(instance, parseProxyPath(raw.rest, raw.query));

    const method = req.method as HttpMethod;
    const withBody = BODY_METHODS.has(method);
    if (!withBody) req.resume(); // a DELETE body is dropped, as SBA does; read it off the socket
    const exchange = runtime.calls.child();
    const onClose = () => {
      if (!res.writableFinished) exchange.abort('client-gone');
    };
    res.once('close', onClose);
    try {
      const upstream = await callUpstream(runtime.dispatcher(), {
        target,
        method,
        headers: upstreamHeaders(req.headers, {
          ignored,
          endpointId: target.endpointId,
          authorization: ctx.instances.authorizationFor(instance),
          withBody,
        }),
        body: withBody ? req : null,
        exchange,
        timeoutMs: config.timeout,
        bodyIdleMs: config['body-idle-timeout'],
      });
      writeHead(res, upstream.statusCode, filterHeaders(upstream.headers, ignored));
      try {
        await pipeline(upstream.body, res);
      } catch (error) {
        // Headers are out: the only honest signal left is a broken connection (pipeline destroyed `res`).
        log.debug(`proxied body of ${target.endpointId} from ${target.origin} ended early: ${(error as Error).message}`);
      }
    } catch (error) {
      if (!(error instanceof ClientGoneError)) {
        log.debug(`${method} ${target.endpointId} of ${id} failed: ${(error as Error).message}`);
        throw error;
      }
      res.destroy();
    } finally {
      res.off('close', onClose);
      exchange.dispose();
    }
  };
}

/** Status and headers as the instance sent them; a header Node refuses to write is left out. */
function writeHead(res: ServerResponse, status: number, headers: Record<string, string | string[]>): void {
  for (const [name, value] of Object.entries(headers)) {
    try {
      res.setHeader(name, value);
    } catch {
      // An invalid character in an instance's header value; the rest of the response is still good.
    }
  }
  res.writeHead(status);
}
