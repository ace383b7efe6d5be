/**
 * When an instance is due again. Every instance gets a fixed phase inside the interval (a hash
 * of its id), and is checked on its own phase: 10,000 instances registered in the same second
 * are spread over the whole interval instead of all being polled on one tick.
 */

/** A stable offset in `[0, interval)` for an id (FNV-1a; ids are hex already, but need not be). */
export function phaseOf(id: string, interval: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < id.length; i += 1) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  const phase = hash % Math.max(1, Math.floor(interval));
  // As an int32 when it fits: the modulo of a large hash is a boxed double even when small, and
  // the scheduler holds one phase per instance and kind of check.
  return phase <= 0x3fffffff ? phase | 0 : phase;
}

/**
 * Vigil's per-instance backoff (SBA has none; its max-backoff only restarts a crashed loop):
 * after `failures` consecutive failed calls, wait interval × 2^(failures-1), at most `maxBackoff`.
 * One failure therefore keeps the normal cadence; the second doubles it, and so on.
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
 * The next periodic check after one that was due (or, when an event triggered it, asked for) at
 * `lastAt`: the first instant on the instance's phase that is
 * - at least `lifetime` after `lastAt`, less `tolerance` (the scheduler's granularity, so timer
 *   jitter never costs a whole interval),
 * - at least the backoff after `lastAt`, after failures,
 * - and not before `now` (a check that outlived its interval is not repeated at once).
 *
 * The age is measured from when a check was due, not from when it completed (SBA measures from
 * completion, so with interval = lifetime = 10 s it polls every 10–20 s, reference §4.2): in
 * steady state an instance is checked exactly once per interval on its phase, even when the
 * concurrency cap made a check start late. An event-triggered check off the phase still counts
 * as a fresh result: the next phase point less than `lifetime` after it is skipped.
 */
export function nextDue(lastAt: number, now: number, failures: number, phase: number, cadence: Cadence, tolerance: number): number {
  const wait = Math.max(cadence.lifetime - tolerance, backoffOf(failures, cadence.interval, cadence.maxBackoff), 1);
  const earliest = Math.max(lastAt + wait, now);
  return phase + Math.ceil((earliest - phase) / cadence.interval) * cadence.interval;
}
