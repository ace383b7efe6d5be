import type { SignInChecks } from './provider.js';
import { returnPath } from './public-url.js';

/** How long a browser may take at the provider's sign-in page. */
export const ATTEMPT_TTL_MS = 10 * 60_000;

/** The longest attempt cookie value written (and read): well inside a browser's 4 KiB per cookie. */
export const MAX_ATTEMPT_COOKIE = 3500;

/** One sign-in, from `/login` to the callback: the checks and where to go back to. */
export interface LoginAttempt extends SignInChecks {
  readonly returnTo: string;
  readonly startedAt: number;
}

/**
 * The attempt travels in its own short-lived cookie, not in server memory: starting sign-ins costs
 * the server nothing however many are started, and any node can finish one another began. It binds
 * the callback to the browser that began the sign-in: the provider's answer must carry this
 * `state`, its ID token this `nonce`, and only this browser holds the PKCE verifier.
 */
export function encodeAttempt(attempt: LoginAttempt): string {
  const { state, nonce, verifier, returnTo, startedAt } = attempt;
  return Buffer.from(JSON.stringify({ s: state, n: nonce, v: verifier, r: returnTo, t: startedAt }), 'utf8').toString('base64url');
}

/** The attempt in a cookie's value, or undefined when it is not one or is older than `ATTEMPT_TTL_MS`. */
export function decodeAttempt(value: string | undefined, now: number): LoginAttempt | undefined {
  if (value === undefined || value.length > MAX_ATTEMPT_COOKIE) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object') return undefined;
  const { s, n, v, r, t } = parsed as Record<string, unknown>;
  if (typeof s !== 'string' || typeof n !== 'string' || typeof v !== 'string' || typeof r !== 'string' || typeof t !== 'number') return undefined;
  if (s === '' || n === '' || v.length < 43 || now - t > ATTEMPT_TTL_MS || t > now + 60_000) return undefined;
  return { state: s, nonce: n, verifier: v, returnTo: returnPath(r), startedAt: t };
}
