import type { ServerResponse } from 'node:http';
import type { BlockList } from 'node:net';
import type { Hook, HttpRoutes, Logger, VigilRequest } from '../../core/plugin-api.js';
import type { AuthOutcome, Authenticator } from './authenticator.js';
import { parseAuthorization, type Credentials } from './authorization-header.js';
import { clientAddress } from './client-address.js';
import { isAnonymousProbe } from './roles.js';

/** What the hook checks against; replaced whole on reload, so a request sees one config or the other. */
export interface AuthState {
  readonly authenticator: Authenticator;
  readonly realm: string;
  readonly anonymousProbes: boolean;
  /** `trusted-proxies`: the peers whose `X-Forwarded-For` names the client. */
  readonly trustedProxies: BlockList;
}

export interface AuthHookOptions {
  readonly contextPath: string;
  readonly log: Logger;
}

/**
 * The `auth` hook: every request (any path, any method, streams and proxy included) needs valid
 * credentials, except the two probes when `anonymous-probes` is on. CORS preflights never get
 * here when `cors` is loaded: its `pre` hook answers them. Logs carry outcomes only, never the
 * header, a password or a token.
 */
export function authHook(state: () => AuthState, http: Pick<HttpRoutes, 'sendError'>, options: AuthHookOptions): Hook {
  const refuse = (req: VigilRequest, res: ServerResponse, realm: string, message: string, bearerAttempt: boolean): void => {
    const basic = `Basic realm="${realm}", charset="UTF-8"`;
    options.log.debug(`401 for ${req.method} ${req.path}: ${message}`);
    // RFC 7235: a 401 carries the challenges; a failed bearer attempt also gets RFC 6750's.
    if (bearerAttempt) res.setHeader('www-authenticate', [basic, `Bearer realm="${realm}", error="invalid_token"`]);
    http.sendError(req, res, 401, message, bearerAttempt ? {} : { 'www-authenticate': basic });
  };

  // RFC 6585: 429 with Retry-After. No challenge: the credentials were not judged, only deferred.
  const slowDown = (req: VigilRequest, res: ServerResponse, outcome: Extract<AuthOutcome, { kind: 'throttled' }>, kind: Credentials['kind']): void => {
    const seconds = outcome.retryAfterSeconds;
    options.log.debug(`429 for ${req.method} ${req.path}: ${outcome.reason === 'address' ? 'address slowed down' : 'verification queue full'}`);
    const what = kind === 'bearer' ? 'with bearer tokens' : 'for this user name';
    http.sendError(req, res, 429, outcome.reason === 'address'
      ? `too many failed logins ${what} from this address; try again in ${seconds} s`
      : `too many logins being verified; try again in ${seconds} s`, { 'retry-after': String(seconds) });
  };

  return async (req: VigilRequest, res: ServerResponse) => {
    const { authenticator, realm, anonymousProbes, trustedProxies } = state();
    const method = req.method ?? 'GET';
    if (anonymousProbes && isAnonymousProbe(method, req.path, options.contextPath)) return undefined;
    // Another authentication plugin already vouched for the caller (an `oidc` session, or its
    // public sign-in pages): browsers sign in there, scripts and SBA clients here. What that
    // principal may do is not this plugin's to decide (nor, for its own callers, either: the kernel's access check does).
    if (req.principal) return undefined;
    const credentials = parseAuthorization(req.headers.authorization);
    if (credentials.kind === 'none') return refuse(req, res, realm, 'authentication required', false);
    if (credentials.kind === 'malformed') return refuse(req, res, realm, 'malformed Authorization header', credentials.bearer);
    const from = clientAddress(req.socket.remoteAddress, req.headers['x-forwarded-for'], trustedProxies);
    const outcome = await authenticator.authenticate(credentials, from);
    if (outcome.kind === 'throttled') return slowDown(req, res, outcome, credentials.kind);
    if (outcome.kind === 'refused') return refuse(req, res, realm, 'bad credentials', credentials.kind === 'bearer');
    if (outcome.kind === 'expired') return refuse(req, res, realm, 'token expired', true);
    const { principal } = outcome;
    req.user = principal.label;
    const role = principal.role === undefined ? {} : { role: principal.role };
    req.principal = principal.token === undefined
      ? { name: principal.label, kind: 'user', via: 'basic', groups: [], ...role }
      : { name: principal.token, kind: 'token', via: 'token', groups: [], ...role };
    return undefined;
  };
}
