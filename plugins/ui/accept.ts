import type { IncomingMessage } from 'node:http';

/** The media ranges of an Accept header that the client accepts (quality above zero), lower-cased. */
function acceptedRanges(accept: string): string[] {
  return accept.split(',').flatMap((part) => {
    const [media, ...params] = part.trim().split(';');
    const range = media?.trim().toLowerCase();
    if (!range) return [];
    const q = params.map((p) => p.trim().toLowerCase()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0 ? [range] : [];
  });
}

/**
 * Whether the client is an API client asking for JSON: it names a JSON type explicitly and does
 * not name HTML. Such a client must never get the dashboard's HTML (a script that mistyped a path
 * would otherwise parse a web page). Browsers name `text/html` when they navigate; a request
 * without an Accept header or with only `*\/*` gets the page.
 */
export function wantsJsonNotHtml(req: IncomingMessage): boolean {
  const accept = req.headers.accept;
  if (!accept) return false;
  const ranges = acceptedRanges(accept);
  const json = ranges.some((range) => range === 'application/json' || /^application\/[\w.+-]+\+json$/.test(range));
  const html = ranges.some((range) => range === 'text/html' || range === 'application/xhtml+xml');
  return json && !html;
}
