import { HttpError } from '../../core/plugin-api.js';

/** The proxied path, split and checked: the endpoint id and the remainder to append. */
export interface ProxyPath {
  /** The first segment, decoded: it names the endpoint. */
  readonly endpointId: string;
  /** The remainder as it goes on the wire: '' or `/seg/seg`, maybe with a trailing `/`; still percent-encoded. */
  readonly tail: string;
  /** The raw query including its `?`, or ''. */
  readonly query: string;
}

/** A checked upstream target: `origin` + `path` is the whole URL, `path` carries the query. */
export interface Target {
  readonly endpointId: string;
  readonly url: URL;
  readonly origin: string;
  readonly path: string;
}

// RFC 3986 pchar plus '%': everything else is percent-encoded before it goes on the wire.
const PATH_UNSAFE = /[^A-Za-z0-9\-._~!$&'()*+,;=:@%]/gu;
const QUERY_UNSAFE = /[^A-Za-z0-9\-._~!$&'()*+,;=:@%/?]/gu;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const CONTROL = /[\u0000-\u001f\u007f]/;
// Left after one decoding step, these turn into dots or slashes at an instance that decodes twice.
const DOUBLE_ENCODED = /%(?:2e|2f|5c)/i;

const reject = (problem: string): never => {
  throw new HttpError(400, `unsafe proxy path: ${problem}`);
};

/**
 * Splits `rest` (after `/actuator/`) into the endpoint id and the tail, refusing anything that
 * could step outside the endpoint once an instance or a proxy in between normalises the path:
 * dot segments (also percent-encoded, also `..;` as Tomcat reads it), encoded slashes and
 * backslashes, empty segments (`//host`), control characters, malformed or double encoding.
 * Refusing beats normalising: a rewritten path could reach an endpoint the caller did not name.
 */
export function parseProxyPath(rest: string, rawQuery: string): ProxyPath {
  if (rest === '') throw new HttpError(404, 'No endpoint specified');
  const segments = rest.split('/');
  const safe = segments.map((raw, index) => {
    if (raw === '') {
      // A single trailing slash is harmless; an empty segment anywhere else is `//`.
      if (index > 0 && index === segments.length - 1) return '';
      return reject('empty path segment (double slash)');
    }
    return checkSegment(raw);
  });
  const endpointId = decodeURIComponent(safe[0]!);
  const tail = safe.length > 1 ? `/${safe.slice(1).join('/')}` : '';
  return { endpointId, tail, query: encodeUnsafe(rawQuery, QUERY_UNSAFE) };
}

function checkSegment(raw: string): string {
  if (raw.includes('\\')) reject('backslash in path');
  if (BAD_PERCENT.test(raw)) reject('malformed percent-encoding');
  let decoded = '';
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    reject('malformed percent-encoding');
  }
  if (CONTROL.test(decoded)) reject('control character in path');
  if (decoded.includes('/')) reject('encoded slash (%2F) in path');
  if (decoded.includes('\\')) reject('encoded backslash (%5C) in path');
  // Servlet containers drop `;params` before normalising, so `..;x` is a `..` there.
  const bare = decoded.split(';')[0];
  if (bare === '.' || bare === '..') reject('dot segment in path');
  if (DOUBLE_ENCODED.test(decoded)) reject('double percent-encoding in path');
  return encodeUnsafe(raw, PATH_UNSAFE);
}

function encodeUnsafe(value: string, unsafe: RegExp): string {
  try {
    return value.replace(unsafe, (char) => encodeURIComponent(char));
  } catch {
    return reject('malformed characters'); // a lone surrogate
  }
}

/** The endpoint's URL; relative hrefs (detection keeps them as given) resolve against the management URL. */
export function endpointLocation(endpointUrl: string, base: string | undefined, endpointId: string): URL {
  try {
    return new URL(endpointUrl, base);
  } catch {
    throw new HttpError(502, `endpoint '${endpointId}' has an invalid URL`);
  }
}

/**
 * Joins the endpoint URL with the checked tail and query, then verifies the result rather than
 * trusting the joining: same origin as the endpoint, a path the URL parser leaves unchanged, and
 * one that starts with the endpoint's own path.
 */
export function buildTarget(endpoint: URL, proxyPath: ProxyPath): Target {
  if (endpoint.protocol !== 'http:' && endpoint.protocol !== 'https:') {
    throw new HttpError(502, `endpoint '${proxyPath.endpointId}' uses the unsupported scheme ${endpoint.protocol}`);
  }
  const basePath = endpoint.pathname.replace(/\/+$/, '');
  const path = `${basePath}${proxyPath.tail}` || '/';
  const query = joinQueries(endpoint.search, proxyPath.query);
  const url = new URL(`${endpoint.origin}${path}${query}`);
  const inside = path === (basePath || '/') || path.startsWith(`${basePath}/`);
  if (url.origin !== endpoint.origin || url.pathname !== path || !inside) reject('the target leaves the endpoint');
  return { endpointId: proxyPath.endpointId, url, origin: endpoint.origin, path: `${path}${query}` };
}

function joinQueries(own: string, requested: string): string {
  if (!own) return requested;
  if (!requested) return own;
  return `${own}&${requested.slice(1)}`;
}
