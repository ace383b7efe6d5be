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

export function statusInfo(status: string, details: Record<string, unknown> = {}): StatusInfo {
  const upper = status.toUpperCase();
  // Each snapshot and STATUS_CHANGED event holds one; 20,000 copies of `{UP, {}}` are ~2 MB.
  return isEmptyObject(details) ? BARE.get(upper) ?? { status: upper, details } : { status: upper, details };
}
