import { HttpError, type HttpMethod, type Instance, type PluginContext, type RouteHandler } from '../../core/plugin-api.js';
import { BODY_METHODS, collectBody, readRequestBody } from './body.js';
import { SANDBOX_HEADERS } from './content-safety.js';
import type { Exchange } from './exchange.js';
import { ClientGoneError, callUpstream, upstreamFailure } from './forward.js';
import { upstreamHeaders } from './headers.js';
import { mapLimit } from './map-limit.js';
import { rawProxyPath } from './request-path.js';
import type { ProxyRuntime } from './runtime.js';
import { parseProxyPath, type Target } from './target-url.js';

/** The fan-out re-sends the body to every instance, so it is held in memory: capped like every JSON body. */
export const FANOUT_BODY_LIMIT = 1024 * 1024;

/** One element of the fan-out answer (SBA's InstanceWebProxy result). */
export interface FanOutResult {
  readonly instanceId: string;
  readonly status: number;
  /** The instance's body as text; left out when empty. */
  readonly body?: string;
  /** Left out with the body. */
  readonly contentType?: string;
}

/**
 * `/applications/:name/actuator/*`: the same request to every registered instance of the
 * application, at most `fan-out.concurrency` at a time, answered with 200 and one result per
 * instance. Each result uses the single-instance codes (404, 403, 502, 504 or the instance's own).
 * Bodies are collected, so two limits apply per instance: `timeout` covers the whole exchange,
 * and a body over `fan-out.max-response-bytes` turns that instance's result into a 502 without
 * a body (a truncated body would look like valid, complete data).
 */
export function applicationProxy(ctx: PluginContext<unknown>, runtime: ProxyRuntime): RouteHandler {
  const { config, ignored, resolver } = runtime;
  const maxBytes = config['fan-out']['max-response-bytes'];
  return async (req, res) => {
    const raw = rawProxyPath(req.originalUrl, ctx.http.contextPath);
    const proxyPath = parseProxyPath(raw.rest, raw.query);
    const method = req.method as HttpMethod;
    const withBody = BODY_METHODS.has(method);
    let body: Buffer | null = null;
    if (withBody) body = await readRequestBody(req, FANOUT_BODY_LIMIT);
    else req.resume();
    const members = ctx.instances.list(req.params.name!);

    const parent = runtime.calls.child();
    const onClose = () => {
      if (!res.writableFinished) parent.abort('client-gone');
    };
    res.once('close', onClose);
    try {
      const callOne = async (instance: Instance): Promise<FanOutResult> => {
        const exchange = parent.child();
        let target: Target | undefined;
        try {
          target = await resolver.resolve(instance, proxyPath);
          exchange.deadline(config.timeout); // the whole exchange, body included: it is buffered
          const headers = upstreamHeaders(req.headers, {
            ignored,
            endpointId: target.endpointId,
            authorization: ctx.outbound.authorizationFor(instance, target.url),
            withBody,
            identity: true,
          });
          if (body) headers['content-length'] = String(body.length);
          const upstream = await callUpstream(runtime.dispatcher(), {
            target, method, headers, body, exchange, timeoutMs: config.timeout, bodyIdleMs: config['body-idle-timeout'],
          });
          const content = await collectBody(upstream.body, maxBytes);
          if (content === undefined) return { instanceId: instance.id, status: 502 };
          return resultOf(instance.id, upstream.statusCode, content, upstream.headers['content-type']);
        } catch (error) {
          return { instanceId: instance.id, status: statusOf(error, target, exchange, config.timeout) };
        } finally {
          exchange.dispose();
        }
      };
      const results = await mapLimit(members, config['fan-out'].concurrency, callOne);
      if (parent.cause) {
        res.destroy();
        return;
      }
      // The bodies inside are the instances' own: the same sandbox as a single proxied answer.
      ctx.http.sendJson(res, 200, results, { ...SANDBOX_HEADERS });
    } finally {
      res.off('close', onClose);
      parent.dispose();
    }
  };
}

function resultOf(instanceId: string, status: number, content: Buffer, contentType: string | string[] | undefined): FanOutResult {
  if (content.length === 0) return { instanceId, status };
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  return { instanceId, status, body: content.toString('utf8'), ...(type ? { contentType: type } : {}) };
}

/** The per-instance status for a failure before or while reading the answer. */
function statusOf(error: unknown, target: Target | undefined, exchange: Exchange, timeoutMs: number): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof ClientGoneError || !target) return 502;
  // A failure while the body streamed in (reset, idle or overall timeout).
  const failure = upstreamFailure(error, { target, exchange, timeoutMs });
  return failure instanceof HttpError ? failure.status : 502;
}
