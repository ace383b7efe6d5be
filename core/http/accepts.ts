import type { IncomingMessage } from 'node:http';

/**
 * The media ranges an `Accept` header accepts (quality above zero), lower-cased, in the order
 * given. Parameter names are case-insensitive (RFC 9110), so `Q=0` refuses a range as `q=0` does.
 */
export function acceptedMediaRanges(accept: string | undefined): string[] {
  if (!accept) return [];
  return accept.split(',').flatMap((part) => {
    const [media, ...params] = part.split(';');
    const range = media!.trim().toLowerCase();
    if (!range) return [];
    const q = params.map((param) => param.trim().toLowerCase()).find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0 ? [range] : [];
  });
}

/**
 * Whether the request's Accept header names `type` (lower-case) explicitly with a non-zero
 * quality. Wildcards do not count: a stream is served only to a client that asked for one
 * (`*\/*` gets JSON, as in SBA).
 */
export function acceptsExplicitly(req: IncomingMessage, type: string): boolean {
  return acceptedMediaRanges(req.headers.accept).includes(type);
}
