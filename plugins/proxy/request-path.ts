import { HttpError } from '../../core/plugin-api.js';

export interface RawProxyPath {
  /** Everything after `/actuator/`, still percent-encoded, exactly as the client sent it. */
  readonly rest: string;
  /** The raw query including its `?`, or ''. */
  readonly query: string;
}

const PROXY_PREFIX = /^\/(?:instances|applications)\/[^/]+\/actuator(?:\/(.*))?$/is;

/**
 * Cuts the proxied part out of the raw request target. The router hands out decoded params, but
 * `%2F` or `%2e%2e` must stay visible to the safety checks and reach the instance unchanged
 * (SBA takes the raw path too), so this works on `originalUrl`.
 */
export function rawProxyPath(originalUrl: string, contextPath: string): RawProxyPath {
  // A fragment never belongs on the wire; drop it the way the router does.
  const hash = originalUrl.indexOf('#');
  const target = hash === -1 ? originalUrl : originalUrl.slice(0, hash);
  const mark = target.indexOf('?');
  const path = mark === -1 ? target : target.slice(0, mark);
  const query = mark === -1 || mark === target.length - 1 ? '' : target.slice(mark);
  // The route matched, so the context path is there (matching is case-insensitive: cut by length).
  const match = PROXY_PREFIX.exec(path.slice(contextPath.length));
  if (!match) throw new HttpError(400, 'the request path is not a proxy path');
  return { rest: match[1] ?? '', query };
}
