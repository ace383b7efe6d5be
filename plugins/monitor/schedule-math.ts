/**
 * When an instance is due again. Every instance gets a fixed phase inside the interval (a hash
 * of its id), and is checked on its own phase: 10,000 instances registered in the same second
 * are spread over the whole interval instead of all being polled on one tick.
 */

/** A stable offset in `[0, interval)` for an id (FNV-1a; ids are hex already, but need not be). */
export function phaseOf(id: string, interval: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  return hash % Math.max(1, Math.floor(interval));
}

/**
 * Vigil's per-instance backoff (SBA has none; its max-backoff only restarts a crashed loop):
 * after `failures` consecutive failed calls, wait interval × 2^(failures-1), at most `maxBackoff`.
 */
export function backoffOf(failures: number, interval: number, maxBackoff: number): number {
  if (failures <= 0) return 0;
  return Math.min(maxBackoff, interval * 2 ** Math.min(failures - 1, 30));
}

export interface Cadence {
  readonly interval: number;
  /** A result younger than this is not fetched again (SBA's `*-lifetime`). */
  readonly lifetime: number;
  readonly maxBackoff: number;
}

/**
 * The first instant on the instance's phase that is at least `lifetime` (or the backoff, when
 * longer) after the last check completed. With interval = lifetime = 10 s that is 10–20 s
 * later, as with SBA's ticks (reference §4.2).
 */
export function nextDue(completedAt: number, failures: number, phase: number, cadence: Cadence): number {
  const earliest = completedAt + Math.max(cadence.lifetime, backoffOf(failures, cadence.interval, cadence.maxBackoff));
  return phase + Math.ceil((earliest - phase) / cadence.interval) * cadence.interval;
}
