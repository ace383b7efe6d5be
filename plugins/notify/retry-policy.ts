import type { DeliverySettings } from './config-schema.js';
import { fullJitter } from './pacing.js';

/** A failed attempt that may be tried again: its reason and the wait the receiver asked for, if any. */
export interface RetryableFailure {
  readonly reason: string;
  readonly retryAfterMs?: number;
}

/** Try again in `retryInMs` (`asked`: the receiver chose the wait), or give up, saying why. */
export type RetryDecision = { readonly retryInMs: number; readonly asked: boolean } | { readonly giveUp: string };

/**
 * What follows failed attempt number `attempts` of a notification created at `createdAt`: the wait
 * the receiver asked for, else a full-jitter backoff capped at `backoff-cap`. A notification is
 * given up only when the next try would come after `max-age`, or after `max-attempts` when that is
 * set (0, the default, is no limit): a receiver restarting, or down for ten minutes, still gets
 * every page of the hour. Pure, so the schedule is tested without a clock.
 */
export function nextRetry(
  failure: RetryableFailure, attempts: number, createdAt: number, settings: DeliverySettings, now = Date.now(), random: () => number = Math.random,
): RetryDecision {
  const maxAttempts = settings['max-attempts'];
  if (maxAttempts > 0 && attempts >= maxAttempts) return { giveUp: `${failure.reason} (after ${plural(attempts)}, max-attempts)` };
  const asked = failure.retryAfterMs !== undefined;
  const wait = failure.retryAfterMs ?? fullJitter(attempts, settings['backoff-base'], settings['backoff-cap'], random);
  if (now + wait - createdAt > settings['max-age']) return { giveUp: `${failure.reason} (after ${plural(attempts)}; the next would pass max-age)` };
  return { retryInMs: wait, asked };
}

const plural = (count: number) => `${count} attempt${count === 1 ? '' : 's'}`;
