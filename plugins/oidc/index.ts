import { ALLOWED_HOSTS, SHARED_STATE, definePlugin, type PluginContext, type VigilPlugin } from '../../core/plugin-api.js';
import { oidcApi } from './api-description.js';
import { oidcSchema, type OidcConfig } from './config.js';
import { identifyHook, refuseHook } from './hooks.js';
import { ClaimReader } from './identity.js';
import { IdentityProvider, describe } from './provider.js';
import { cookiePathOf } from './public-url.js';
import { CALLBACK_PATH, LOGIN_PATH, LOGOUT_PATH, SIGNED_OUT_PATH, type OidcRuntime } from './runtime.js';
import { SessionKeeper } from './session-keeper.js';
import { SessionStore } from './session-store.js';
import { SessionStreams } from './session-streams.js';
import { callback, login } from './sign-in.js';
import { logout, signedOut } from './sign-out.js';

export interface OidcPluginOptions {
  /** The clock of sessions and access tokens (tests simulate hours with it). */
  readonly now?: () => number;
  /** How often the sessions of open event streams are checked (default 30 s). */
  readonly streamCheckMs?: number;
}

/** Plugins that authenticate requests this one leaves alone (HTTP Basic and their own tokens). */
const OTHER_AUTHENTICATORS = ['basic-auth'];
/** The sign-in pages: anybody may reach them (the access check leaves them alone). */
const PUBLIC = { action: 'public' } as const;
/** How often expired sessions are swept from the shared map's index. */
const SWEEP_EVERY_MS = 10 * 60_000;

/**
 * The `oidc` plugin with a given clock; `oidc` in `plugins:` is `createOidcPlugin()`.
 */
export function createOidcPlugin(options: OidcPluginOptions = {}): VigilPlugin<OidcConfig> {
  const now = options.now ?? Date.now;

  return definePlugin<OidcConfig>({
    name: 'oidc',
    version: '1.0.0',
    configSchema: oidcSchema,
    create(ctx) {
      const { config } = ctx;
      const contextPath = ctx.http.contextPath;
      const shared = () => ctx.services.use(SHARED_STATE)!;
      const store = new SessionStore(() => shared().map('oidc.sessions'), () => shared().map('oidc.ended'),
        () => ({ ttlMs: config.session.ttl, idleMs: config.session['idle-timeout'] }), now);
      const provider = new IdentityProvider(config, ctx.log, now);
      const claims = new ClaimReader(config, ctx.log);
      const streams = new SessionStreams(store, ctx.log, options.streamCheckMs ?? 30_000);
      const cookiePath = cookiePathOf(config['base-url'], contextPath);
      const secure = config['base-url'].startsWith('https:');
      const runtime: OidcRuntime = {
        config, contextPath, provider, claims, now, log: ctx.log, http: ctx.http, bus: ctx.bus,
        sessions: new SessionKeeper(store, provider, claims, streams, ctx.log, now),
        streams,
        cookie: { path: cookiePath, secure },
        attemptCookie: { path: `${cookiePath === '/' ? '' : cookiePath}${LOGIN_PATH}`, secure },
      };
      warnAboutBaseUrl(ctx);

      const others = OTHER_AUTHENTICATORS.some((name) => ctx.settings.pluginIndex(name) >= 0);
      ctx.http.hook('pre', identifyHook(() => runtime));
      ctx.http.hook('auth', refuseHook(() => runtime, others));
      ctx.http.route('GET', LOGIN_PATH, (req, res) => login(runtime, req, res), PUBLIC);
      ctx.http.route('GET', CALLBACK_PATH, (req, res) => callback(runtime, req, res), PUBLIC);
      ctx.http.route('GET', SIGNED_OUT_PATH, (req, res) => signedOut(runtime, req, res), PUBLIC);
      ctx.http.route('POST', LOGOUT_PATH, (req, res) => logout(runtime, req, res), PUBLIC);
      if (config['base-url'] !== '') {
        const host = new URL(config['base-url']).hostname;
        ctx.services.contribute(ALLOWED_HOSTS, { hosts: () => [host] });
      }
      oidcApi(ctx.services, config);

      let sweep: NodeJS.Timeout | undefined;
      return {
        start() {
          // Discovered now so a wrong issuer shows in the log at start; a provider that is down does
          // not stop the daemon (sign-ins answer 503 until it is back).
          provider.configuration().catch(() => undefined);
          sweep = setInterval(() => {
            runtime.sessions.sweep().catch((error: unknown) => ctx.log.debug(`session sweep failed: ${describe(error)}`));
          }, SWEEP_EVERY_MS);
          sweep.unref();
          streams.start();
        },
        stop() {
          if (sweep) clearInterval(sweep);
          streams.stop();
        },
      };
    },
  });
}

/** A `base-url` whose path does not end with the context path sends the provider's redirects where no route is, unless a proxy rewrites paths. */
function warnAboutBaseUrl(ctx: PluginContext<OidcConfig>): void {
  const baseUrl = ctx.config['base-url'];
  const contextPath = ctx.http.contextPath;
  if (baseUrl === '' || contextPath === '' || new URL(baseUrl).pathname.replace(/\/+$/, '').endsWith(contextPath)) return;
  ctx.log.warn(`oidc.base-url ${baseUrl} does not end with the context path ${contextPath}: the identity provider will send browsers to `
    + `${baseUrl}${CALLBACK_PATH}, which reaches Vigil only through a proxy that adds ${contextPath}`);
}

/** `oidc`: single sign-on through an OpenID Connect provider, with server-side sessions. */
export default createOidcPlugin();
