import { definePlugin, type HttpMethod, type PluginContext } from '../../core/plugin-api.js';
import { applicationProxy } from './application-proxy.js';
import { proxyConfigSchema, type ProxyConfig } from './config-schema.js';
import { instanceProxy } from './instance-proxy.js';
import { targetResolver } from './resolve-target.js';
import { ProxyRuntime } from './runtime.js';

const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

// One plugin object serves every kernel in the process (tests run many); each kernel gives it one
// context for its whole life, which keys that kernel's runtime.
const runtimes = new WeakMap<PluginContext<ProxyConfig>, ProxyRuntime>();

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
  setup(ctx) {
    const runtime = new ProxyRuntime(ctx.config, targetResolver(ctx.instances, ctx.services, ctx.config.timeout), ctx.log, ctx.outbound);
    runtimes.set(ctx, runtime);
    runtime.calls.follow(ctx.signal, 'shutdown');
    const plain = ctx as PluginContext<unknown>;
    // The bare `/actuator` forms exist to answer "no endpoint specified" like the rest of the proxy.
    for (const path of ['/instances/:id/actuator', '/instances/:id/actuator/*']) {
      ctx.http.route(METHODS, path, instanceProxy(plain, runtime));
    }
    for (const path of ['/applications/:name/actuator', '/applications/:name/actuator/*']) {
      ctx.http.route(METHODS, path, applicationProxy(plain, runtime));
    }
  },
  start(ctx) {
    runtimes.get(ctx)?.open();
  },
  async stop(ctx) {
    await runtimes.get(ctx)?.close();
    runtimes.delete(ctx);
  },
});
