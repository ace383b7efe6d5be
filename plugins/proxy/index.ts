import { LabelledCounts } from '../../core/kits/runtime/index.js';
import { definePlugin, type HttpMethod, type PluginContext, type RouteAccess, type RouteHandler } from '../../core/plugin-api.js';
import { METRICS } from '../../core/kits/services/index.js';
import { proxyApi } from './api-description.js';
import { applicationProxy } from './application-proxy.js';
import { proxyConfigSchema, type ProxyConfig } from './config-schema.js';
import { instanceProxy } from './instance-proxy.js';
import { targetResolver } from './resolve-target.js';
import { ProxyRuntime } from './runtime.js';
import { rawProxyPath } from './request-path.js';
import { parseProxyPath } from './target-url.js';

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * What a proxied call is for the access check: a read (`GET`, `HEAD`, and `OPTIONS`, which changes
 * nothing) or a write, of the endpoint the path names first (sensitive and admin endpoints need admin).
 */
function proxyAccess(contextPath: string): RouteAccess {
  return {
    action: (req) => (req.method === 'GET' || req.method === 'HEAD' || req.method === 'OPTIONS' ? 'actuator.read' : 'actuator.write'),
    // Read as the proxy reads it; a path it would refuse (400) names no endpoint.
    endpoint: (req) => {
      try {
        const raw = rawProxyPath(req.originalUrl, contextPath);
        return raw.rest === '' ? undefined : parseProxyPath(raw.rest, raw.query).endpointId;
      } catch {
        return undefined;
      }
    },
  };
}

/**
 * `proxy`: the management-endpoint proxy (reference §7). `/instances/{id}/actuator/**` streams
 * one call to one detected endpoint; `/applications/{name}/actuator/**` fans a call out to every
 * instance of an application. Targets are always under a detected endpoint's URL; calls go
 * through the kernel's outbound policy (credentials for the instance's own origins only, optional
 * SSRF protection, Vigil's User-Agent), and answers are sandboxed on the way back.
 */
export default definePlugin<ProxyConfig>({
  name: 'proxy',
  version: '0.1.0',
  configSchema: proxyConfigSchema,
  create(ctx) {
    const runtime = new ProxyRuntime(ctx.config, targetResolver(ctx.registry, ctx.services, ctx.config.timeout), ctx.log, ctx.outbound);
    runtime.calls.follow(ctx.signal, 'shutdown');
    const plain = ctx as PluginContext<unknown>;
    const counted = countedBy(new LabelledCounts(['code_class']), ctx);
    // The bare `/actuator` forms exist to answer "no endpoint specified" like the rest of the proxy.
    const access = proxyAccess(ctx.http.contextPath);
    for (const path of ['/instances/:id/actuator', '/instances/:id/actuator/*']) {
      ctx.http.route(METHODS, path, counted(instanceProxy(plain, runtime)), { ...access, target: 'instance' });
    }
    // No target: a fan-out reaches only the caller's instances (an application it may not see has none).
    for (const path of ['/applications/:name/actuator', '/applications/:name/actuator/*']) {
      ctx.http.route(METHODS, path, counted(applicationProxy(plain, runtime)), access);
    }
    proxyApi(ctx.services, METHODS);
    return { start: () => runtime.open(), stop: () => runtime.close() };
  },
});

/**
 * Counts the proxy's answers by status class (`vigil_proxy_requests_total`), the instance's or
 * Vigil's own (404, 502, 504), once each response has closed.
 */
function countedBy(counts: LabelledCounts, ctx: PluginContext<ProxyConfig>): (handler: RouteHandler) => RouteHandler {
  ctx.services.contribute(METRICS, {
    name: 'vigil_proxy_requests_total', help: 'Requests through the actuator proxy, by the status class of the answer', type: 'counter',
    labelNames: ['code_class'], collect: () => counts.samples(),
  });
  const classes = new Map([1, 2, 3, 4, 5].map((n) => [n, { code_class: `${n}xx` }]));
  return (handler) => (req, res) => {
    res.once('close', () => counts.inc(classes.get(Math.floor(res.statusCode / 100)) ?? { code_class: 'other' }));
    return handler(req, res);
  };
}
