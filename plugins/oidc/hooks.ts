import type { ServerResponse } from 'node:http';
import type { Hook, Principal, VigilRequest } from '../../core/plugin-api.js';
import { SESSION_COOKIE, appendCookie, clearCookie, cookieOf } from './cookies.js';
import { belowContextPath, publicBase, returnPath } from './public-url.js';
import { CALLBACK_PATH, LOGIN_PATH, LOGOUT_PATH, SIGNED_OUT_PATH, redirect, wantsHtml, wantsStream, type OidcRuntime } from './runtime.js';
import { isSecretId } from './sealed.js';

/** Who is on the sign-in pages: nobody yet. */
const ANONYMOUS: Principal = Object.freeze({ name: 'anonymous', kind: 'anonymous', via: 'oidc', groups: Object.freeze([]) as readonly string[] });
/** A JWS in compact form: three base64url parts. Other bearer tokens (basic-auth's) are not looked at. */
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/**
 * The `pre`-stage hook: says who is calling, and sends browsers without a session to sign in.
 *
 * It runs before every `auth` hook, whatever the order of `plugins:`, so `basic-auth` (loaded
 * beside it for scripts and Spring Boot Admin clients) finds the principal already set and lets
 * the request through; requests this hook cannot vouch for are left alone for it to judge. Only
 * browsers are answered here: a navigation without a session or credentials goes to `/login`
 * (and comes back after), and the dashboard's own requests without a session (it ended, or was
 * signed out in another tab) get 401 without a Basic challenge, which would open the browser's
 * password dialog over the page; the dashboard then goes to `/login` itself.
 */
export function identifyHook(rt: () => OidcRuntime): Hook {
  return async (req: VigilRequest, res: ServerResponse) => {
    const runtime = rt();
    const cookie = cookieOf(req, SESSION_COOKIE);
    if (cookie !== undefined && isSecretId(cookie)) {
      const session = await runtime.sessions.current(cookie);
      if (session) {
        const { name, groups } = session.record;
        req.principal = { name, kind: 'user', via: 'oidc', groups };
        req.user = name;
        if (wantsStream(req)) runtime.streams.watch(cookie, res);
        return;
      }
    }
    const authorization = req.headers.authorization;
    if (runtime.config['accept-access-tokens'] && authorization !== undefined && await vouchForBearer(runtime, req, authorization)) return;
    if (isSignInPath(runtime.contextPath, req)) {
      req.principal = ANONYMOUS;
      return;
    }
    // Credentials of another kind: basic-auth's to judge (or the auth hook's to refuse).
    if (authorization !== undefined) return;
    if (isNavigation(req)) {
      if (cookie !== undefined) appendCookie(res, clearCookie(SESSION_COOKIE, runtime.cookie));
      const base = publicBase(req, runtime.config['base-url'], runtime.contextPath);
      const back = returnPath(belowContextPath(req.originalUrl, runtime.contextPath));
      const query = back === '/' ? '' : `?return=${encodeURIComponent(back)}`;
      redirect(res, `${base?.prefix ?? runtime.contextPath}${LOGIN_PATH}${query}`, 302);
      return;
    }
    if (cookie !== undefined) {
      appendCookie(res, clearCookie(SESSION_COOKIE, runtime.cookie));
      runtime.http.sendError(req, res, 401, `session expired or signed out; sign in again at ${runtime.contextPath}${LOGIN_PATH}`);
    } else if (isOwnPageRequest(req)) {
      runtime.http.sendError(req, res, 401, `authentication required; sign in at ${runtime.contextPath}${LOGIN_PATH}`);
    }
  };
}

/**
 * The `auth`-stage hook: without another authentication plugin, a request nobody vouched for is
 * refused here. With `basic-auth` loaded it does nothing: that plugin refuses (or accepts) it.
 */
export function refuseHook(rt: () => OidcRuntime, othersAuthenticate: boolean): Hook {
  return (req: VigilRequest, res: ServerResponse) => {
    if (req.principal !== undefined || othersAuthenticate) return;
    const runtime = rt();
    const bearer = runtime.config['accept-access-tokens'];
    const sentBearer = bearer && /^bearer\s/i.test(req.headers.authorization ?? '');
    const headers: Record<string, string> = bearer ? { 'www-authenticate': `Bearer realm="Vigil"${sentBearer ? ', error="invalid_token"' : ''}` } : {};
    runtime.http.sendError(req, res, 401, sentBearer ? 'invalid bearer token' : `authentication required; sign in at ${runtime.contextPath}${LOGIN_PATH}`, headers);
  };
}

async function vouchForBearer(rt: OidcRuntime, req: VigilRequest, authorization: string): Promise<boolean> {
  const match = /^bearer\s+(\S+)\s*$/i.exec(authorization);
  if (!match || !JWT_SHAPE.test(match[1]!)) return false;
  let payload;
  try {
    payload = await rt.provider.verifyAccessToken(match[1]!);
  } catch {
    // The provider's keys cannot be read now: the token is not vouched for (basic-auth may know it).
    return false;
  }
  if (!payload) return false;
  const { name, groups } = rt.claims.fromAccessToken(payload);
  req.principal = { name, kind: 'user', via: 'oidc', groups };
  req.user = name;
  return true;
}

/** The plugin's own public pages: signing in, coming back, signed out, and signing out (which works without a session too). */
function isSignInPath(contextPath: string, req: VigilRequest): boolean {
  const path = req.path;
  if (req.method === 'POST') return path === `${contextPath}${LOGOUT_PATH}`;
  if (req.method !== 'GET') return false;
  return path === `${contextPath}${LOGIN_PATH}` || path === `${contextPath}${CALLBACK_PATH}` || path === `${contextPath}${SIGNED_OUT_PATH}`;
}

/**
 * A request a page of Vigil's own origin made (the dashboard's fetches and streams; browsers mark
 * every request with `Sec-Fetch-Site`, scripts send none). Without a session it is answered here,
 * without basic-auth's challenge, which would open the browser's password dialog over the page.
 * Preflights are left to `cors`.
 */
function isOwnPageRequest(req: VigilRequest): boolean {
  return req.method !== 'OPTIONS' && req.headers['sec-fetch-site'] === 'same-origin';
}

/** A browser opening a page (not a script, not the dashboard's own fetches, which ask for JSON or a stream). */
function isNavigation(req: VigilRequest): boolean {
  return (req.method === 'GET' || req.method === 'HEAD') && wantsHtml(req);
}
