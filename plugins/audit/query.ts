import { HttpError, type VigilRequest } from '../../core/plugin-api.js';
import type { AuditFilter } from './memory-trail.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
const TEXT_FILTERS = ['actor', 'application', 'instance', 'action'] as const;
const MAX_FILTER_LENGTH = 256;
/** An ISO 8601 date, or a date-time with a zone: what `since` accepts (Date.parse alone takes much else). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2}))?$/;

export interface AuditQuery {
  readonly filter: AuditFilter;
  readonly limit: number;
}

/** The query of `GET /audit`; a bad value is a 400 naming the parameter, and nothing is read. */
export function parseAuditQuery(req: VigilRequest): AuditQuery {
  const at = req.originalUrl.indexOf('?');
  const params = new URLSearchParams(at < 0 ? '' : req.originalUrl.slice(at + 1));
  const filter: { -readonly [K in keyof AuditFilter]: AuditFilter[K] } = {};
  for (const name of TEXT_FILTERS) {
    const value = params.get(name);
    if (value === null) continue;
    if (value === '' || value.length > MAX_FILTER_LENGTH) throw new HttpError(400, `parameter "${name}" must be 1 to ${MAX_FILTER_LENGTH} characters`);
    filter[name] = value;
  }
  const since = params.get('since');
  if (since !== null) {
    const time = ISO_INSTANT.test(since) ? Date.parse(since) : NaN;
    if (Number.isNaN(time)) throw new HttpError(400, `parameter "since" must be an ISO date (2026-11-27) or date-time with a zone (2026-11-27T09:30:00Z), got ${JSON.stringify(since.slice(0, 64))}`);
    filter.since = time;
  }
  const limitText = params.get('limit');
  let limit = DEFAULT_LIMIT;
  if (limitText !== null) {
    limit = /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) throw new HttpError(400, `parameter "limit" must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(limitText.slice(0, 64))}`);
  }
  return { filter, limit };
}
