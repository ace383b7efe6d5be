import { MASK } from './mask.js';

/**
 * The URL with the password of its userinfo (`http://user:secret@host/`) replaced by the mask,
 * as written otherwise: an instance registered with credentials in a URL must not have them
 * echoed in responses, events, streams or logs. A URL without a password comes back unchanged.
 */
export function maskUrlPassword<T extends string | null>(url: T): T;
export function maskUrlPassword(url: string | null): string | null {
  if (url === null) return url;
  const start = url.indexOf('//');
  if (start < 0 || !url.includes('@', start)) return url;
  let end = url.length;
  for (const stop of ['/', '?', '#', '\\']) {
    const at = url.indexOf(stop, start + 2);
    if (at >= 0 && at < end) end = at;
  }
  // The userinfo ends at the authority's last '@' (WHATWG URL), so a stray '@' in a password is covered.
  const at = url.lastIndexOf('@', end - 1);
  if (at < start + 2) return url;
  const colon = url.indexOf(':', start + 2);
  if (colon < 0 || colon > at) return url;
  return `${url.slice(0, colon + 1)}${MASK}${url.slice(at)}`;
}
