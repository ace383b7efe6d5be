import type { IncomingMessage } from 'node:http';

/**
 * Whether the request's Accept header names `type` explicitly with a non-zero quality. Wildcards
 * do not count: a stream is served only to a client that asked for one (`*\/*` gets JSON, as in SBA).
 */
export function acceptsExplicitly(req: IncomingMessage, type: string): boolean {
  const accept = req.headers.accept;
  if (!accept) return false;
  return accept.split(',').some((part) => {
    const [media, ...params] = part.trim().split(';');
    if (media?.trim().toLowerCase() !== type) return false;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}
