import { HttpError, parseDuration } from '../../../core/plugin-api.js';
import type { NewWindow } from './store.js';

const KEYS: ReadonlySet<string> = new Set(['applications', 'instances', 'start', 'end', 'duration', 'reason']);
/** An instant with its zone: a local time would mean something else on every machine. */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:\d{2})$/i;
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const LIMITS = {
  applications: { items: 100, length: 256 },
  instances: { items: 1000, length: 64 },
} as const;
const MAX_REASON = 1000;

const bad = (message: string) => new HttpError(400, message);

/**
 * The window a `POST /maintenance` body asks for, checked whole: `{applications, instances, start,
 * end | duration, reason}`. Every problem is a 400 naming it, before anything is made. A start in
 * the past means now (a window cannot hide what was already notified).
 */
export function newWindowOf(body: unknown, now: number): NewWindow {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad('the body must be a JSON object such as {"applications": ["orders-*"], "duration": "2h", "reason": "database upgrade"}');
  }
  const fields = body as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !KEYS.has(key));
  if (unknown.length > 0) throw bad(`unknown key${unknown.length === 1 ? '' : 's'} ${unknown.map((key) => `'${key.slice(0, 40)}'`).join(', ')}: a window takes applications, instances, start, end or duration, and reason`);
  const applications = textList(fields.applications, 'applications');
  const instances = textList(fields.instances, 'instances');
  if (applications.length + instances.length === 0) throw bad("a window needs 'applications' (globs such as \"orders-*\") or 'instances' (ids), or both");
  const start = Math.max(now, fields.start === undefined ? now : instant(fields.start, 'start'));
  if (fields.end !== undefined && fields.duration !== undefined) throw bad("give either 'end' or 'duration', not both");
  let end: number;
  if (fields.end !== undefined) {
    end = instant(fields.end, 'end');
  } else if (fields.duration !== undefined) {
    const length = typeof fields.duration === 'string' || typeof fields.duration === 'number' ? parseDuration(fields.duration) : undefined;
    if (length === undefined || length <= 0) throw bad("'duration' must be a positive duration such as \"90m\", \"2h\" or \"PT2H\" (or milliseconds)");
    end = start + length;
  } else {
    throw bad("a window needs 'end' (an ISO-8601 instant) or 'duration' (such as \"2h\")");
  }
  if (end <= start) throw bad(`'end' must be after the start (${new Date(start).toISOString()})`);
  if (!Number.isSafeInteger(end) || end > 8.64e15) throw bad("'end' is too far in the future");
  const reason = fields.reason ?? '';
  if (typeof reason !== 'string') throw bad("'reason' must be a string");
  if (reason.length > MAX_REASON) throw bad(`'reason' has at most ${MAX_REASON} characters`);
  if (CONTROL.test(reason)) throw bad("'reason' must be one line without control characters");
  return { applications, instances, start, end, reason };
}

function textList(value: unknown, key: keyof typeof LIMITS): string[] {
  if (value === undefined) return [];
  const { items, length } = LIMITS[key];
  if (!Array.isArray(value)) throw bad(`'${key}' must be a list of strings`);
  if (value.length > items) throw bad(`'${key}' has at most ${items} entries`);
  const list: string[] = [];
  for (const item of value) {
    if (typeof item !== 'string' || item.trim() === '') throw bad(`'${key}' must be a list of non-empty strings`);
    if (item.length > length) throw bad(`an entry of '${key}' has at most ${length} characters`);
    if (CONTROL.test(item)) throw bad(`an entry of '${key}' has a control character`);
    if (!list.includes(item)) list.push(item);
  }
  return list;
}

function instant(value: unknown, key: string): number {
  const at = typeof value === 'string' && ISO_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) throw bad(`'${key}' must be an ISO-8601 instant with its zone, such as "2026-03-29T02:00:00Z" or "2026-03-29T04:00:00+02:00"`);
  return at;
}
