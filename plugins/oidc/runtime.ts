import type { ServerResponse } from 'node:http';
import type { HttpRoutes, Logger, PluginBus, VigilRequest } from '../../core/plugin-api.js';
import type { OidcConfig } from './config.js';
import type { CookieScope } from './cookies.js';
import type { ClaimReader } from './identity.js';
import { sendPage } from './pages.js';
import type { IdentityProvider } from './provider.js';
import type { SessionKeeper } from './session-keeper.js';
import type { SessionStreams } from './session-streams.js';

/** The paths the plugin serves, below the context path. */
export const LOGIN_PATH = '/login';
export const CALLBACK_PATH = '/login/oidc/callback';
export const SIGNED_OUT_PATH = '/login/signed-out';
export const LOGOUT_PATH = '/logout';

/** Everything the plugin's hooks and routes share for one kernel. */
export interface OidcRuntime {
  readonly config: OidcConfig;
  readonly contextPath: string;
  readonly provider: IdentityProvider;
  readonly claims: ClaimReader;
  readonly sessions: SessionKeeper;
  /** Event streams opened with a session, ended with it. */
  readonly streams: SessionStreams;
  /** Where and how the session cookie is set. */
  readonly cookie: CookieScope;
  /** Where and how the sign-in attempt cookie is set (only the callback needs it). */
  readonly attemptCookie: CookieScope;
  readonly http: Pick<HttpRoutes, 'sendError' | 'sendJson'>;
  readonly log: Logger;
  readonly now: () => number;
  /** Where sign-ins and sign-outs are told (the audit trail listens). */
  readonly bus: Pick<PluginBus, 'emit'>;
}

/** The peer's address, an IPv4-mapped one as plain IPv4 (what sign-in events name). */
export function peerOf(req: VigilRequest): string | null {
  const address = req.socket?.remoteAddress;
  if (address === undefined) return null;
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

/** Whether the client asked for a page (a browser) rather than JSON. */
export function wantsHtml(req: VigilRequest): boolean {
  return acceptsHtml(req.headers.accept);
}

/** Whether the client asked for an event stream (what the stream routes serve it). */
export function wantsStream(req: VigilRequest): boolean {
  return acceptsExplicitly(req.headers.accept, 'text/event-stream');
}

/** Whether an `Accept` header names `text/html` explicitly, with a q above 0. */
export function acceptsHtml(accept: string | undefined): boolean {
  return acceptsExplicitly(accept, 'text/html');
}

function acceptsExplicitly(accept: string | undefined, media: string): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type, ...parameters] = range.split(';').map((part) => part.trim().toLowerCase());
    if (type !== media) return false;
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/**
 * A failed sign-in or sign-out, as a page for a browser (with a link to try again) or as the
 * contract's JSON error for anything else. The message says what happened, never a token or
 * what the provider said beyond its error code.
 */
export function refuse(rt: OidcRuntime, req: VigilRequest, res: ServerResponse, status: number, title: string, message: string, prefix: string): void {
  if (!wantsHtml(req)) {
    rt.http.sendError(req, res, status, `${title}: ${message}`, { 'cache-control': 'no-store' });
    return;
  }
  sendPage(res, status, { title, message, link: { href: `${prefix}${LOGIN_PATH}`, text: 'Sign in again' } });
}

/** A redirect that no cache keeps. */
export function redirect(res: ServerResponse, location: string, status = 303): void {
  res.writeHead(status, { location, 'cache-control': 'no-store', 'content-length': '0' });
  res.end();
}
