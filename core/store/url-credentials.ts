import { MASK } from './mask.js';

const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;
/** Schemes whose authority the WHATWG parser finds after any run of slashes or backslashes, even none. */
const SPECIAL = new Set(['http:', 'https:', 'ws:', 'wss:', 'ftp:', 'file:']);

/**
 * The URL with the password of its userinfo replaced by the mask, as written otherwise: an
 * instance registered with credentials in a URL must not have them echoed in responses, events,
 * streams or logs. A URL without a password comes back unchanged (the same string).
 *
 * Where the userinfo is follows the WHATWG URL parser, which is what undici and the dashboard
 * use: for http(s) the authority starts after the scheme and ANY run of `/` or `\` (so
 * `http:user:pw@host` and `http:\\user:pw@host` carry a password too), ends at the first `/`,
 * `\`, `?` or `#`, and its userinfo ends at the authority's last `@`. The parser itself then
 * confirms there is a password, so the scan can never mask what is not one.
 */
export function maskUrlPassword<T extends string | null>(url: T): T;
export function maskUrlPassword(url: string | null): string | null {
  if (url === null || !url.includes('@')) return url;
  const span = passwordSpan(url);
  if (!span || !hasPassword(url)) return url;
  return `${url.slice(0, span.start)}${MASK}${url.slice(span.end)}`;
}

/** Where the password of the userinfo is, by the WHATWG parser's rules; undefined when none. */
function passwordSpan(url: string): { start: number; end: number } | undefined {
  const scheme = SCHEME.exec(url)?.[0];
  let at = scheme ? scheme.length : 0;
  const special = scheme ? SPECIAL.has(scheme.toLowerCase()) : true;
  if (special) {
    while (url[at] === '/' || url[at] === '\\') at += 1;
  } else if (url.startsWith('//', at)) {
    at += 2;
  } else {
    return undefined;
  }
  let end = url.length;
  for (const stop of special ? ['/', '\\', '?', '#'] : ['/', '?', '#']) {
    const found = url.indexOf(stop, at);
    if (found >= 0 && found < end) end = found;
  }
  const userinfoEnd = url.lastIndexOf('@', end - 1);
  if (userinfoEnd < at) return undefined;
  const colon = url.indexOf(':', at);
  if (colon < 0 || colon > userinfoEnd) return undefined;
  return { start: colon + 1, end: userinfoEnd };
}

function hasPassword(url: string): boolean {
  try {
    // Absolute first: against an http base, `http:user:pw@host` would read as a relative path.
    return (URL.canParse(url) ? new URL(url) : new URL(url, 'http://base.invalid/')).password !== '';
  } catch {
    // Not a URL the parser (and so any HTTP client here) would use, but it is shown as given:
    // mask whatever sits where a password would.
    return true;
  }
}
