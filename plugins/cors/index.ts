import { definePlugin, type PluginContext } from '../../core/plugin-api.js';
import { corsSchema, type CorsConfig } from './config.js';
import { corsHook } from './hook.js';
import { CorsPolicy } from './policy.js';

function policyOf(ctx: PluginContext<CorsConfig>, config: CorsConfig): CorsPolicy {
  if (config['allowed-origins'].length === 0) ctx.log.warn('no allowed-origins configured: every cross-origin request is refused');
  return new CorsPolicy(config);
}

/**
 * `cors`: CORS headers and preflights for browser dashboards served from another origin (seed
 * "Limits" 6). It runs in the `pre` stage, so a preflight is answered before `basic-auth`. The
 * whole section can change on reload; the next request sees the new policy.
 */
export default definePlugin<CorsConfig>({
  name: 'cors',
  version: '1.0.0',
  configSchema: corsSchema,
  create(ctx) {
    let policy = policyOf(ctx, ctx.config);
    ctx.http.hook('pre', corsHook(() => policy, ctx.http));
    ctx.http.trustOrigin((origin) => policy.trusts(origin));
    return {
      reload(config: CorsConfig) {
        policy = policyOf(ctx, config);
      },
    };
  },
});
