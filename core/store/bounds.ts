import { isDeepStrictEqual } from 'node:util';
import { withoutControlCharacters } from './status.js';
import type { EventDraft, Instance, StatusInfo } from './types.js';

/** Longest status string kept; an instance can report any string, and each one is held in events. */
export const MAX_STATUS_LENGTH = 64;
/** The details key that says what was cut; a health component is unlikely to bear this name. */
export const TRUNCATED_KEY = 'vigil.truncated';
/** How many left-out keys the marker names; the rest are counted. */
const NAMED_KEYS = 20;

/**
 * The status without control characters (whoever reported it) and with its string cut to
 * `MAX_STATUS_LENGTH`, the cut noted in the details. Commands compare this form, so a long status
 * that does not change records nothing.
 */
export function boundStatus(reported: StatusInfo): StatusInfo {
  const status = withoutControlCharacters(reported.status);
  const statusInfo = status === reported.status ? reported : { status, details: reported.details };
  if (statusInfo.status.length <= MAX_STATUS_LENGTH) return statusInfo;
  return {
    status: statusInfo.status.slice(0, MAX_STATUS_LENGTH),
    details: { ...statusInfo.details, [TRUNCATED_KEY]: `status of ${statusInfo.status.length} characters cut to ${MAX_STATUS_LENGTH}` },
  };
}

/**
 * An object cut to at most about `maxBytes` of JSON: whole top-level entries are kept in order
 * while they fit, the rest left out, and `TRUNCATED_KEY` says how large it was and what went.
 * Returned unchanged (the same object) when it fits.
 */
export function boundObject(value: Readonly<Record<string, unknown>>, maxBytes: number, what: string): Readonly<Record<string, unknown>> {
  const size = Buffer.byteLength(JSON.stringify(value));
  if (size <= maxBytes) return value;
  // Room for the marker itself, so the result stays within the limit.
  let room = maxBytes - 512;
  const kept: Record<string, unknown> = {};
  const omitted: string[] = [];
  for (const [key, entry] of Object.entries(value)) {
    const entrySize = Buffer.byteLength(JSON.stringify(key)) + Buffer.byteLength(JSON.stringify(entry) ?? 'null') + 2;
    if (entrySize <= room) {
      kept[key] = entry;
      room -= entrySize;
    } else {
      omitted.push(key);
    }
  }
  const named = omitted.slice(0, NAMED_KEYS).map((key) => (key.length > MAX_STATUS_LENGTH ? `${key.slice(0, MAX_STATUS_LENGTH)}…` : key));
  const more = omitted.length > NAMED_KEYS ? ` and ${omitted.length - NAMED_KEYS} more` : '';
  kept[TRUNCATED_KEY] = `${what} of ${size} bytes cut to the ${maxBytes}-byte limit; left out: ${named.join(', ')}${more}`;
  return kept;
}

/**
 * The draft as it may be recorded: status strings and details, and info, within their limits.
 * Every event passes through here (the registry calls it), whatever plugin made the command.
 */
export function boundDraft(draft: EventDraft, maxDetailsBytes: number): EventDraft {
  if (draft.type === 'STATUS_CHANGED') {
    const status = boundStatus(draft.statusInfo);
    const details = boundObject(status.details, maxDetailsBytes, 'status details');
    if (status === draft.statusInfo && details === status.details) return draft;
    return { type: 'STATUS_CHANGED', statusInfo: { status: status.status, details } };
  }
  if (draft.type === 'INFO_CHANGED') {
    const info = boundObject(draft.info, maxDetailsBytes, 'info');
    return info === draft.info ? draft : { type: 'INFO_CHANGED', info };
  }
  return draft;
}

/**
 * Whether a cut draft says nothing new: an instance that keeps reporting the same oversized
 * answer must not record it again at every check just because the held copy was cut.
 */
export function repeatsCurrent(draft: EventDraft, current: Instance): boolean {
  if (draft.type === 'STATUS_CHANGED') return isDeepStrictEqual(draft.statusInfo, current.statusInfo);
  if (draft.type === 'INFO_CHANGED') return isDeepStrictEqual(draft.info, current.info);
  return false;
}
