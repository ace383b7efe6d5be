/** What an `Authorization` header carries, once parsed. */
export type Credentials =
  | { readonly kind: 'none' }
  /** Present but unusable: bad base64, no colon, empty, an unknown scheme. `bearer` picks the challenge. */
  | { readonly kind: 'malformed'; readonly bearer: boolean }
  | { readonly kind: 'basic'; readonly username: string; readonly password: string }
  | { readonly kind: 'bearer'; readonly token: string };

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
// RFC 6750 b64token.
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Parses `Basic base64(user:password)` (RFC 7617, UTF-8) and `Bearer <token>` (RFC 6750). The
 * scheme is case-insensitive; anything that does not decode strictly is `malformed`, never a
 * guess, so a damaged header cannot be read as other credentials.
 */
export function parseAuthorization(header: string | undefined): Credentials {
  if (header === undefined || header.trim() === '') return { kind: 'none' };
  const match = /^\s*(\S+)(?:\s+(.*?))?\s*$/.exec(header);
  const scheme = (match?.[1] ?? '').toLowerCase();
  const value = match?.[2] ?? '';
  if (scheme === 'bearer') {
    return TOKEN68.test(value) ? { kind: 'bearer', token: value } : { kind: 'malformed', bearer: true };
  }
  if (scheme !== 'basic' || value === '' || !BASE64.test(value)) return { kind: 'malformed', bearer: false };
  let decoded: string;
  try {
    decoded = utf8.decode(Buffer.from(value, 'base64'));
  } catch {
    return { kind: 'malformed', bearer: false };
  }
  const colon = decoded.indexOf(':');
  if (colon <= 0) return { kind: 'malformed', bearer: false };
  return { kind: 'basic', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
