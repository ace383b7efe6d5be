import type { ServerResponse } from 'node:http';
import * as client from 'openid-client';
import { StoreUnavailableError, type VigilRequest } from '../../core/plugin-api.js';
import { LOGIN_COOKIE, SESSION_COOKIE, appendCookie, clearCookie, cookieOf, setCookie } from './cookies.js';
import { ATTEMPT_TTL_MS, MAX_ATTEMPT_COOKIE, decodeAttempt, encodeAttempt } from './login-attempt.js';
import { describe, isUnreachable } from './provider.js';
import { publicBase, returnPath, type PublicBase } from './public-url.js';
import { CALLBACK_PATH, peerOf, redirect, refuse, type OidcRuntime } from './runtime.js';
import { isSecretId } from './sealed.js';

/** The query string of a request target, `?` included, or ''. */
function queryOf(req: VigilRequest): string {
  const at = req.originalUrl.indexOf('?');
  return at < 0 ? '' : req.originalUrl.slice(at);
}

/** The public base, or the refusal that explains why plain http on a non-loopback host cannot sign in. */
function baseFor(rt: OidcRuntime, req: VigilRequest, res: ServerResponse): PublicBase | undefined {
  const base = publicBase(req, rt.config['base-url'], rt.contextPath);
  if (base) return base;
  rt.log.warn(`sign-in refused for Host ${JSON.stringify(String(req.headers.host ?? '').slice(0, 100))}: oidc.base-url is not set and the request came over plain http to a host other than loopback`);
  refuse(rt, req, res, 400, 'Single sign-on needs https', 'Open Vigil over https; when TLS ends at a proxy in front of Vigil, set oidc.base-url to the https URL it is opened at.', rt.contextPath);
  return undefined;
}

/**
 * `GET /login[?return=/path]`: sends the browser to the provider, keeping the attempt's checks in
 * a short-lived cookie. Someone already signed in goes straight back.
 */
export async function login(rt: OidcRuntime, req: VigilRequest, res: ServerResponse): Promise<void> {
  const back = returnPath(new URLSearchParams(queryOf(req)).get('return'));
  const base = baseFor(rt, req, res);
  if (!base) return;
  if (req.principal !== undefined && req.principal.kind !== 'anonymous') {
    redirect(res, `${base.prefix}${back}`);
    return;
  }
  let started;
  try {
    started = await rt.provider.authorizationUrl(`${base.absolute}${CALLBACK_PATH}`);
  } catch (error) {
    rt.log.warn(`sign-in could not start: ${describe(error)}`);
    refuse(rt, req, res, 503, 'The identity provider cannot be reached', 'Signing in is not possible right now; try again in a moment.', base.prefix);
    return;
  }
  let attempt = encodeAttempt({ ...started.checks, returnTo: back, startedAt: rt.now() });
  // A cookie holds 4 KiB at most: a return path too long for it is not worth a failed sign-in.
  if (attempt.length > MAX_ATTEMPT_COOKIE) attempt = encodeAttempt({ ...started.checks, returnTo: '/', startedAt: rt.now() });
  appendCookie(res, setCookie(LOGIN_COOKIE, attempt, rt.attemptCookie, ATTEMPT_TTL_MS / 1000));
  redirect(res, started.url.href);
}

/**
 * `GET /login/oidc/callback`: where the provider sends the browser back. The code is exchanged
 * (state, nonce and PKCE checked by openid-client), the identity read, and a new session begun.
 */
export async function callback(rt: OidcRuntime, req: VigilRequest, res: ServerResponse): Promise<void> {
  const base = baseFor(rt, req, res);
  if (!base) return;
  // The attempt is used once, whatever happens next.
  appendCookie(res, clearCookie(LOGIN_COOKIE, rt.attemptCookie));
  const attempt = decodeAttempt(cookieOf(req, LOGIN_COOKIE), rt.now());
  if (!attempt) {
    refuse(rt, req, res, 400, 'Sign-in expired', 'This sign-in was not started in this browser, took too long, or was already used.', base.prefix);
    return;
  }
  // The redirect URI is derived from this URL: the one sent at /login, plus what the provider added.
  const current = new URL(`${base.absolute}${CALLBACK_PATH}${queryOf(req)}`);
  let session;
  try {
    const tokens = await rt.provider.exchange(current, attempt);
    const identity = await rt.claims.fromTokens(tokens, rt.provider);
    const previous = cookieOf(req, SESSION_COOKIE);
    session = await rt.sessions.begin(identity, tokens, previous !== undefined && isSecretId(previous) ? previous : undefined);
  } catch (error) {
    failed(rt, req, res, error, base.prefix);
    return;
  }
  appendCookie(res, setCookie(SESSION_COOKIE, session.id, rt.cookie));
  rt.log.info(`${session.record.name} signed in`, { groups: session.record.groups.length });
  rt.bus.emit('principal.signed-in', { principal: { name: session.record.name, kind: 'user', via: 'oidc', groups: session.record.groups }, address: peerOf(req) });
  redirect(res, `${base.prefix}${attempt.returnTo}`);
}

/** Answers a failed callback: what kind of failure, in words a person can act on; details in the log only. */
function failed(rt: OidcRuntime, req: VigilRequest, res: ServerResponse, error: unknown, prefix: string): void {
  rt.bus.emit('principal.sign-in-failed', { via: 'oidc', address: peerOf(req), reason: error instanceof client.AuthorizationResponseError ? 'refused by the identity provider' : 'the sign-in did not complete' });
  if (error instanceof client.AuthorizationResponseError) {
    rt.log.info(`sign-in refused by the identity provider: ${describe(error)}`);
    const code = /^[a-z_]{1,64}$/.test(error.error) ? ` (${error.error})` : '';
    refuse(rt, req, res, 403, 'Sign-in refused', `The identity provider did not sign you in${code}.`, prefix);
  } else if (error instanceof StoreUnavailableError) {
    rt.log.warn(`sign-in failed, the session cannot be stored: ${describe(error)}`);
    refuse(rt, req, res, 503, 'Sessions cannot be stored now', 'Signing in is not possible right now; try again in a moment.', prefix);
  } else if (isUnreachable(error)) {
    rt.log.warn(`sign-in failed, the identity provider cannot be reached: ${describe(error)}`);
    refuse(rt, req, res, 503, 'The identity provider cannot be reached', 'Signing in is not possible right now; try again in a moment.', prefix);
  } else if (error instanceof client.ResponseBodyError) {
    rt.log.warn(`sign-in failed, the identity provider refused the code: ${describe(error)}`);
    refuse(rt, req, res, 400, 'Sign-in failed', 'The identity provider did not accept this sign-in; sign in again.', prefix);
  } else {
    // A response that does not check out: state, nonce, issuer, signature, audience...
    rt.log.warn(`sign-in failed, the identity provider's answer did not check out: ${describe(error)}`);
    refuse(rt, req, res, 400, 'Sign-in failed', 'The answer from the identity provider did not check out; sign in again.', prefix);
  }
}
