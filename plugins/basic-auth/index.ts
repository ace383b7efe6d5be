import { definePlugin, type PluginContext } from '../../core/plugin-api.js';
import { API_DESCRIPTION } from '../../core/kits/services/index.js';
import { Authenticator } from './authenticator.js';
import { basicAuthSchema, type BasicAuthConfig } from './config.js';
import { parseTrustedProxies } from './client-address.js';
import { hashPasswordCommand } from './hash-password-command.js';
import { authHook, type AuthState } from './hook.js';
import { isHashed } from './scrypt-hash.js';

async function stateOf(ctx: PluginContext<BasicAuthConfig>, config: BasicAuthConfig, previous?: AuthState): Promise<AuthState> {
  const plain = config.users.filter((user) => !isHashed(user.password)).length;
  if (plain > 0) ctx.log.info(`${plain} password(s) in the config are plain text; \`vigil hash-password\` makes a hash to store instead`);
  return {
    authenticator: await Authenticator.create(config, ctx.log, previous ? { previous: previous.authenticator } : {}),
    realm: config.realm,
    anonymousProbes: config['anonymous-probes'],
    trustedProxies: parseTrustedProxies(config['trusted-proxies']),
  };
}

/**
 * `basic-auth`: HTTP Basic and bearer-token authentication on every path (seed "Authentication"),
 * with an `admin` role for people, a `registration` role for Spring Boot Admin clients and a
 * `metrics` role for Prometheus. Users and tokens can change on reload: requests from then on
 * are checked against the new list (streams already open stay open).
 */
export default definePlugin<BasicAuthConfig>({
  name: 'basic-auth',
  version: '1.1.0',
  configSchema: basicAuthSchema,
  commands: { 'hash-password': hashPasswordCommand },
  async create(ctx) {
    // The hook reads the current state on every request; it outlives stop (a keep-alive request may still come in while stopping).
    let state = await stateOf(ctx, ctx.config);
    ctx.http.hook('auth', authHook(() => state, ctx.http, { contextPath: ctx.http.contextPath, log: ctx.log }));
    ctx.services.contribute(API_DESCRIPTION, {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'basic-auth users (role admin, registration or metrics)' },
        bearer: { type: 'http', scheme: 'bearer', description: 'basic-auth tokens (role admin, registration or metrics)' },
      },
      security: [{ basic: [] }, { bearer: [] }],
    });
    return {
      async reload(config: BasicAuthConfig) {
        // Built in full (plain passwords hashed) before the swap: a request never sees half a config.
        state = await stateOf(ctx, config, state);
      },
    };
  },
});
