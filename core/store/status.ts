import { isEmptyObject } from './empty-object.js';
import { KNOWN_STATUSES, type StatusInfo } from './types.js';

export const UNKNOWN_STATUS: StatusInfo = Object.freeze({ status: 'UNKNOWN', details: Object.freeze({}) });

/**
 * Severity rank, 0 = most severe (DOWN). A custom status ranks before DOWN, as SBA's comparator
 * does (index -1), so an unexpected value is never hidden behind a known one.
 */
export function severity(status: string): number {
  return (KNOWN_STATUSES as readonly string[]).indexOf(status);
}

/** One shared value per known status without details: what nearly every health check reports. */
const BARE: ReadonlyMap<string, StatusInfo> = new Map(KNOWN_STATUSES.map((status) => [status, Object.freeze({ status, details: Object.freeze({}) })]));

/** C0 and C1 controls, DEL, and the Unicode line and paragraph separators. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;
const CONTROL_CHARACTERS = new RegExp(CONTROL_CHARACTER.source, 'g');

/**
 * A status string without control characters. A status travels into log lines, mail headers and
 * bodies, chat messages and URLs: `"DOWN\r\nBCC: ..."` from an instance must not split any of
 * them. Removed rather than escaped, so the status stays one comparable word.
 */
export function withoutControlCharacters(status: string): string {
  return CONTROL_CHARACTER.test(status) ? status.replace(CONTROL_CHARACTERS, '') : status;
}

export function statusInfo(status: string, details: Record<string, unknown> = {}): StatusInfo {
  const upper = withoutControlCharacters(status).toUpperCase();
  // Each snapshot and STATUS_CHANGED event holds one: shared, a fleet's are not copies (bench/REPORT.md).
  return isEmptyObject(details) ? BARE.get(upper) ?? { status: upper, details } : { status: upper, details };
}
