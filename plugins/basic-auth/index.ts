import { definePlugin } from '../../core/plugin-api.js';
import { Authenticator } from './authenticator.js';
import { basicAuthSchema, type BasicAuthConfig } from './config.js';
import { authHook } from './hook.js';
import { isHashed } from './scrypt-hash.js';

/**
 * `basic-auth`: HTTP Basic and bearer-token authentication on every path (seed "Authentication"),
 * with an `admin` role for people and a `registration` role for Spring Boot Admin clients.
 */
export default definePlugin<BasicAuthConfig>({
  name: 'basic-auth',
  version: '1.0.0',
  configSchema: basicAuthSchema,
  async setup(ctx) {
    const plain = ctx.config.users.filter((user) => !isHashed(user.password)).length;
    if (plain > 0) ctx.log.info(`${plain} password(s) in the config are plain text; \`vigil hash-password\` makes a hash to store instead`);
    const authenticator = await Authenticator.create(ctx.config, ctx.log);
    ctx.http.hook('auth', authHook(authenticator, ctx.http, { realm: ctx.config.realm, contextPath: ctx.http.contextPath, log: ctx.log }));
  },
});
