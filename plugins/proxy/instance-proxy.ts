import type { ServerResponse } from 'node:http';
import { HttpError, type HttpMethod, type PluginContext, type RouteHandler } from '../../core/plugin-api.js';
import { BODY_METHODS } from './body.js';
import { sandboxed } from './content-safety.js';
import { BodyCutError, ClientGoneError, streamUpstream } from './forward.js';
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
    const instance = ctx.registry.get(id);
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
      await streamUpstream(runtime.dispatcher(), {
        target,
        method,
        headers: upstreamHeaders(req.headers, {
          ignored,
          endpointId: target.endpointId,
          authorization: ctx.outbound.authorizationFor(instance, target.url),
          withBody,
        }),
        body: withBody ? req : null,
        exchange,
        timeoutMs: config.timeout,
        bodyIdleMs: config['body-idle-timeout'],
      }, (status, headers) => writeHead(res, status, sandboxed(filterHeaders(headers, ignored))));
    } catch (error) {
      if (error instanceof BodyCutError) {
        // Headers are out: the only honest signal left is the broken connection undici left behind.
        log.debug(`proxied body of ${target.endpointId} from ${target.origin} ended early: ${error.message}`);
      } else if (error instanceof ClientGoneError) {
        res.destroy();
      } else {
        log.debug(`${method} ${target.endpointId} of ${id} failed: ${(error as Error).message}`);
        throw error;
      }
    } finally {
      res.off('close', onClose);
      exchange.dispose();
    }
  };
}

/**
 * Status and headers as the instance sent them. One writeHead for the whole set; only if Node
 * refuses a value (an invalid character from the instance) are they set one by one, leaving that
 * header out: the rest of the response is still good.
 */
function writeHead(res: ServerResponse, status: number, headers: Record<string, string | string[]>): ServerResponse {
  try {
    return res.writeHead(status, headers);
  } catch {
    for (const [name, value] of Object.entries(headers)) {
      try {
        res.setHeader(name, value);
      } catch {
        // left out
      }
    }
    return res.writeHead(status);
  }
}
