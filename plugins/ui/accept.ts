import type { IncomingMessage } from 'node:http';
import { acceptedMediaRanges } from '../../core/plugin-api.js';

/**
 * Whether the client is an API client asking for JSON: it names a JSON type explicitly and does
 * not name HTML. Such a client must never get the dashboard's HTML (a script that mistyped a path
 * would otherwise parse a web page). Browsers name `text/html` when they navigate; a request
 * without an Accept header or with only `*\/*` gets the page.
 */
export function wantsJsonNotHtml(req: IncomingMessage): boolean {
  const ranges = acceptedMediaRanges(req.headers.accept);
  const json = ranges.some((range) => range === 'application/json' || /^application\/[\w.+-]+\+json$/.test(range));
  const html = ranges.some((range) => range === 'text/html' || range === 'application/xhtml+xml');
  return json && !html;
}
