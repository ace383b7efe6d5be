import type { IncomingMessage } from 'node:http';

/** The session cookie's name (fixed: configs, proxies and docs name it). */
export const SESSION_COOKIE = 'vigil_session';
/** The short-lived cookie that carries one sign-in attempt from `/login` to the callback. */
export const LOGIN_COOKIE = 'vigil_login';

/** Where and how a cookie is set: the same attributes must be repeated to clear it. */
export interface CookieScope {
  readonly path: string;
  readonly secure: boolean;
}

/** The value of the first cookie called `name` in the request, or undefined. */
export function cookieOf(req: IncomingMessage, name: string): string | undefined {
  const header = req.headers.cookie;
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value.replace(/^"(.*)"$/, '$1');
  }
  return undefined;
}

/**
 * A `Set-Cookie` value: always HttpOnly (no script reads it) and SameSite=Lax (sent on the
 * identity provider's redirect back, a cross-site top-level GET, but not on cross-site POSTs).
 * Without `maxAgeSeconds` it is a browser-session cookie: the server decides when it expires.
 */
export function setCookie(name: string, value: string, scope: CookieScope, maxAgeSeconds?: number): string {
  const parts = [`${name}=${value}`, `Path=${scope.path}`];
  if (maxAgeSeconds !== undefined) parts.push(`Max-Age=${maxAgeSeconds}`);
  parts.push('HttpOnly', 'SameSite=Lax');
  if (scope.secure) parts.push('Secure');
  return parts.join('; ');
}

/** A `Set-Cookie` value that removes the cookie (same name, path and attributes, expired). */
export function clearCookie(name: string, scope: CookieScope): string {
  return setCookie(name, '', scope, 0);
}

/** Adds a `Set-Cookie` header to those already set on the response. */
export function appendCookie(res: { getHeader(name: string): unknown; setHeader(name: string, value: string[]): unknown }, cookie: string): void {
  const current = res.getHeader('set-cookie');
  const list = Array.isArray(current) ? current.map(String) : current === undefined ? [] : [String(current)];
  res.setHeader('set-cookie', [...list, cookie]);
}
