import { KNOWN_STATUSES, type StatusInfo } from './types.js';

export const UNKNOWN_STATUS: StatusInfo = Object.freeze({ status: 'UNKNOWN', details: Object.freeze({}) });

/**
 * Severity rank, 0 = most severe (DOWN). A custom status ranks before DOWN, as SBA's comparator
 * does (index -1), so an unexpected value is never hidden behind a known one.
 */
export function severity(status: string): number {
  return (KNOWN_STATUSES as readonly string[]).indexOf(status);
}

export function statusInfo(status: string, details: Record<string, unknown> = {}): StatusInfo {
  return { status: status.toUpperCase(), details };
}
