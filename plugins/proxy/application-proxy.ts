import { HttpError, type HttpMethod, type PluginContext, type RouteHandler } from '../../core/plugin-api.js';
import { scopeOf } from '../../core/kits/access-scope/index.js';
import type { FanOutResult, Instance } from '../../core/domain/index.js';
import { mapLimit } from '../../core/kits/runtime/index.js';
import { BODY_METHODS, collectWithin, readRequestBody } from './body.js';
import { SANDBOX_HEADERS } from './content-safety.js';
import type { Exchange } from './exchange.js';
import { ByteBudget } from './fan-out-limits.js';
import { ClientGoneError, callUpstream, upstreamFailure } from './forward.js';
import { upstreamHeaders } from './headers.js';
import { rawProxyPath } from './request-path.js';
import type { ProxyRuntime } from './runtime.js';
import { parseProxyPath, type Target } from './target-url.js';

/** The fan-out re-sends the body to every instance, so it is held in memory: capped like every JSON body. */
export const FANOUT_BODY_LIMIT = 1024 * 1024;

/** A result while the fan-out runs: the body still as bytes, turned into text only when written. */
interface Gathered {
  readonly instanceId: string;
  readonly status: number;
  /** Dropped once written, so a slow client does not keep every answer alive until the end. */
  content?: Buffer;
  readonly contentType?: string;
  readonly cut?: true;
}

/**
 * `/applications/:name/actuator/*`: the same request to every registered instance of the
 * application, at most `fan-out.concurrency` at a time, answered with 200 and one result per
 * instance. Each result uses the single-instance codes (404, 403, 502, 504 or the instance's own).
 * Bodies are collected, so limits apply: `timeout` covers each instance's whole exchange; a body
 * over `fan-out.max-response-bytes` turns that instance's result into a 502 without a body (a
 * truncated body would look like valid, complete data); all the bodies of one fan-out together
 * hold at most `fan-out-max-bytes`, past which each answer still arriving is left out and marked
 * `cut`; and at most `max-concurrent-fan-outs` run at once (503 with Retry-After beyond). The
 * answer is written item by item, each body turned into text only when its turn comes.
 */
export function applicationProxy(ctx: PluginContext<unknown>, runtime: ProxyRuntime): RouteHandler {
  const { config, ignored, resolver } = runtime;
  const maxBytes = config['fan-out']['max-response-bytes'];
  const budgetBytes = config['fan-out-max-bytes'];
  const cutMessage = `answer left out: the answers of this fan-out reached proxy.fan-out-max-bytes (${budgetBytes} bytes)`;
  return async (req, res) => {
    const raw = rawProxyPath(req.originalUrl, ctx.http.contextPath);
    const proxyPath = parseProxyPath(raw.rest, raw.query);
    const release = runtime.fanOuts.enter();
    try {
      const method = req.method as HttpMethod;
      const withBody = BODY_METHODS.has(method);
      let body: Buffer | null = null;
      if (withBody) body = await readRequestBody(req, FANOUT_BODY_LIMIT);
      else req.resume();
      // Only the instances the caller may see: an application outside its grants fans out to
      // nobody, exactly as an unknown one.
      const scope = scopeOf(req);
      const members = ctx.registry.list(req.params.name!).filter((instance) => scope.all || scope.allows(instance.registration?.name ?? ''));
      const budget = new ByteBudget(budgetBytes);

      const parent = runtime.calls.child();
      const onClose = () => {
        if (!res.writableFinished) parent.abort('client-gone');
      };
      res.once('close', onClose);
      try {
        const callOne = async (instance: Instance): Promise<Gathered> => {
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
            const collected = await collectWithin(upstream.body, maxBytes, budget);
            if (collected.outcome === 'cut') return { instanceId: instance.id, status: 502, cut: true };
            if (collected.outcome === 'too-large') return { instanceId: instance.id, status: 502 };
            return gathered(instance.id, upstream.statusCode, collected.content, upstream.headers['content-type']);
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
        await ctx.http.sendJsonArray(res, 200, results, (result) => wireResult(result, cutMessage), { ...SANDBOX_HEADERS });
      } finally {
        res.off('close', onClose);
        parent.dispose();
      }
    } finally {
      release();
    }
  };
}

function gathered(instanceId: string, status: number, content: Buffer, contentType: string | string[] | undefined): Gathered {
  if (content.length === 0) return { instanceId, status };
  const type = Array.isArray(contentType) ? contentType[0] : contentType;
  return { instanceId, status, content, ...(type ? { contentType: type } : {}) };
}

/** The result as written: the body decoded as text now, not while the other answers were held. */
function wireResult(result: Gathered, cutMessage: string): FanOutResult {
  if (result.cut) return { instanceId: result.instanceId, status: result.status, cut: true, message: cutMessage };
  const { content } = result;
  if (!content) return { instanceId: result.instanceId, status: result.status };
  result.content = undefined;
  return { instanceId: result.instanceId, status: result.status, body: content.toString('utf8'), ...(result.contentType ? { contentType: result.contentType } : {}) };
}

/** The per-instance status for a failure before or while reading the answer. */
function statusOf(error: unknown, target: Target | undefined, exchange: Exchange, timeoutMs: number): number {
  if (error instanceof HttpError) return error.status;
  if (error instanceof ClientGoneError || !target) return 502;
  // A failure while the body streamed in (reset, idle or overall timeout).
  const failure = upstreamFailure(error, { target, exchange, timeoutMs });
  return failure instanceof HttpError ? failure.status : 502;
}
