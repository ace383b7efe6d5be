import { definePlugin } from '../../core/plugin-api.js';
import { corsSchema, type CorsConfig } from './config.js';
import { corsHook } from './hook.js';
import { CorsPolicy } from './policy.js';

/**
 * `cors`: CORS headers and preflights for browser dashboards served from another origin (seed
 * "Limits" 6). It runs in the `pre` stage, so a preflight is answered before `basic-auth`.
 */
export default definePlugin<CorsConfig>({
  name: 'cors',
  version: '1.0.0',
  configSchema: corsSchema,
  setup(ctx) {
    const origins = ctx.config['allowed-origins'];
    if (origins.length === 0) ctx.log.warn('no allowed-origins configured: every cross-origin request is refused');
    const policy = new CorsPolicy(ctx.config);
    ctx.http.hook('pre', corsHook(policy, ctx.http));
    ctx.http.trustOrigin((origin) => policy.trusts(origin));
  },
});
