import type { HeaderMap } from './headers.js';

/**
 * Headers that keep proxied content from acting on Vigil's origin. Whatever an instance sends
 * is served from the dashboard's origin, where the operator's credentials are cached: opened in a
 * browser, an HTML page with a script would run with them. So every proxied answer is sandboxed
 * (an opaque origin, no scripts, no forms), never sniffed into another type, and anything but
 * JSON and plain text is a download. The dashboard reads proxied answers with `fetch`, which
 * none of these headers affect.
 */
export const SANDBOX_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': 'sandbox',
  'x-content-type-options': 'nosniff',
};

const SHOWN_INLINE = /^(?:application\/(?:[\w.+-]+\+)?json|text\/plain)\s*(?:;|$)/i;

/** The instance's headers with the sandbox applied (the map is changed in place and returned). */
export function sandboxed(headers: HeaderMap): HeaderMap {
  Object.assign(headers, SANDBOX_HEADERS);
  const type = headers['content-type'];
  if (typeof type !== 'string' || !SHOWN_INLINE.test(type.trim())) {
    // An instance's own `attachment; filename=...` is kept; `inline` or nothing becomes a download.
    const disposition = headers['content-disposition'];
    if (typeof disposition !== 'string' || !/^\s*attachment\b/i.test(disposition)) headers['content-disposition'] = 'attachment';
  }
  return headers;
}
