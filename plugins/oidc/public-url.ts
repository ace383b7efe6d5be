import type { IncomingMessage } from 'node:http';
import { isLoopbackHost } from './loopback.js';

/** Where Vigil's pages are, as the browser sees them. */
export interface PublicBase {
  /** The absolute URL of the context root, without a trailing slash: what the provider sends browsers back to. */
  readonly absolute: string;
  /** What redirects within Vigil start with: `base-url` when configured, else the context path (a path-absolute URL). */
  readonly prefix: string;
}

/**
 * Vigil's public base for a request: `base-url` when configured; else the origin the request was
 * sent to (its `Host`, plain http since Vigil itself does not terminate TLS), which only a
 * loopback host may use: elsewhere the session cookie would travel in clear text and could not
 * be `Secure`. Undefined then (or for a `Host` that is not a host).
 */
export function publicBase(req: IncomingMessage, baseUrl: string, contextPath: string): PublicBase | undefined {
  if (baseUrl !== '') return { absolute: baseUrl, prefix: baseUrl };
  const host = req.headers.host;
  if (host === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${host}`);
  } catch {
    return undefined;
  }
  if (url.host !== host.toLowerCase() || !isLoopbackHost(url.hostname)) return undefined;
  return { absolute: `http://${url.host}${contextPath}`, prefix: contextPath };
}

/** The path cookies are scoped to: the public path of the context root (`base-url`'s, else the context path), `/` at the top. */
export function cookiePathOf(baseUrl: string, contextPath: string): string {
  const path = baseUrl === '' ? contextPath : new URL(baseUrl).pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

/** Paths that sign in and out: never a place to come back to after signing in. */
const SIGN_IN_PATHS = /^\/(?:login|logout)(?:[/?#]|$)/;

/**
 * Where to send the browser after signing in: a path below the context root as the client asked
 * (`/#/journal`, `/instances/abc`), or `/` for anything else. Only a path on this server is
 * accepted (never `//host` or `/\host`, which browsers read as another site).
 */
export function returnPath(requested: string | null | undefined): string {
  if (typeof requested !== 'string' || requested.length > 2048) return '/';
  if (!requested.startsWith('/') || requested.startsWith('//') || /[\\\p{Cc}]/u.test(requested)) return '/';
  return SIGN_IN_PATHS.test(requested) ? '/' : requested;
}

/** The part of a request target below the context path, or undefined when it is not below it. */
export function belowContextPath(target: string, contextPath: string): string | undefined {
  if (contextPath === '') return target;
  if (target === contextPath) return '/';
  return target.startsWith(`${contextPath}/`) || target.startsWith(`${contextPath}?`) ? target.slice(contextPath.length) || '/' : undefined;
}
