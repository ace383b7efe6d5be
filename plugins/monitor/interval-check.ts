import { messageOf, type Logger } from '../../core/plugin-api.js';
import { Cancellation } from './cancellation.js';
import type { Check, CheckOutcome } from './check-outcome.js';
import type { ConcurrencyLimiter, TaskLine } from './concurrency-limiter.js';
import { FOLLOW_UP_HOLD_MS, inFollowUpSlot } from './follow-up-slot.js';
import { nextDue, phaseOf, type Cadence } from './schedule-math.js';

/** Time as the scheduler sees it; tests pass a fake one and call `tick()` themselves. */
export interface Clock {
  now(): number;
  /** Calls `fn` every `ms` until the returned function is called. */
  every(ms: number, fn: () => void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  every(ms, fn) {
    const timer = setInterval(fn, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export interface IntervalCheckOptions extends Cadence {
  /** `status`, `info` or `detection`, for logs. */
  readonly name: string;
  readonly check: Check;
  /** Every call of every kind: the cap on calls in flight (`max-concurrent-checks`). */
  readonly limiter: ConcurrencyLimiter;
  /**
   * Checks an event asked for (`now()`: a first registration, a status change) pass this one
   * first (`max-concurrent-follow-ups`), so a thousand applications starting at once are followed
   * up a few at a time while the cadence keeps every slot of `limiter`; a follow-up slower than
   * `followUpHoldMs` gives its slot back. None: `limiter` only.
   */
  readonly followUps?: TaskLine;
  /** How long a follow-up keeps its slot at most (see `inFollowUpSlot`); tests shorten it. */
  readonly followUpHoldMs?: number;
  readonly log: Logger;
  readonly clock?: Clock;
  /** Told of every check that ran to a verdict (`ok` or `error`), with its duration in seconds (metrics). */
  readonly observe?: (outcome: 'ok' | 'error', seconds: number) => void;
}

/**
 * Entries keep their instants in ms after the check's epoch, not since 1970: a small integer is
 * stored inside the object, while an epoch-sized one is a separate number box per field, which
 * adds up over the three checks of every instance (bench/REPORT.md). The epoch
 * moves forward every few days so the offsets stay small.
 */
const REBASE_AFTER_MS = 2 ** 28;

interface Entry {
  /** Changes only when the interval does (reload). */
  phase: number;
  failures: number;
  /** When the latest check was due (periodic) or asked for (event), after the epoch: the age of its result counts from here. */
  lastAt: number;
  /** When the next periodic check is due, after the epoch, once scheduled. */
  due: number | undefined;
  /** The wheel bucket holding the entry while scheduled, counted from the epoch's bucket. */
  slot: number | undefined;
  /** The running check's cancellation: cancelling it cancels the call (deregistration, ownership lost, stop). */
  running: Cancellation | undefined;
  /** An event asked for a check while one was running: run once more right after it. */
  again: boolean;
}

/**
 * The "when" of one kind of check (SBA's IntervalCheck plus its event-driven trigger entry):
 * `now(id)` runs a check at once, and after each check the instance is due again on its own
 * phase, one interval after the previous check was due (see schedule-math `nextDue`). One timer
 * drives a hashed timing wheel of buckets, so the cost of a tick is the number of instances
 * due, not the number known; an instance never has two checks of one kind running at once.
 */
export class IntervalCheck {
  readonly #entries = new Map<string, Entry>();
  readonly #buckets = new Map<number, Set<string>>();
  #options: IntervalCheckOptions;
  #granularity: number;
  readonly #clock: Clock;
  #lastSlot = 0;
  /** What entries' instants count from. */
  #epoch: number;
  #cancelTimer: (() => void) | undefined;
  #stopped = false;

  constructor(options: IntervalCheckOptions) {
    this.#options = options;
    this.#clock = options.clock ?? systemClock;
    this.#granularity = granularityOf(options.interval);
    this.#epoch = this.#clock.now();
    this.#lastSlot = this.#slotOf(this.#clock.now()) - 1;
  }

  /**
   * A new interval, lifetime or max backoff (reload). Checks running now finish as they are;
   * every waiting instance is rescheduled at its phase point of the new interval, so the spread
   * holds from the first round on.
   */
  reconfigure(cadence: Cadence): void {
    this.#options = { ...this.#options, ...cadence };
    const running = this.#cancelTimer !== undefined;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    this.#buckets.clear();
    this.#granularity = granularityOf(cadence.interval);
    const now = this.#clock.now();
    this.#lastSlot = this.#slotOf(now) - 1;
    // Changed in place: a running check's completion finds its entry by identity.
    for (const [id, entry] of this.#entries) {
      entry.phase = phaseOf(id, cadence.interval);
      entry.due = undefined;
      entry.slot = undefined;
      if (!entry.running) this.#schedule(id, entry, entry.phase + Math.ceil((now - entry.phase) / cadence.interval) * cadence.interval);
    }
    if (running) this.#cancelTimer = this.#clock.every(this.#granularity, () => this.tick());
  }

  /** Instances known to this check. */
  get size(): number {
    return this.#entries.size;
  }

  start(): void {
    this.#stopped = false;
    this.#lastSlot = this.#slotOf(this.#clock.now()) - 1;
    this.#cancelTimer ??= this.#clock.every(this.#granularity, () => this.tick());
  }

  /** Stops the timer and aborts every running check; nothing is rescheduled afterwards. */
  stop(): void {
    this.#stopped = true;
    this.#cancelTimer?.();
    this.#cancelTimer = undefined;
    for (const entry of this.#entries.values()) entry.running?.cancel();
    this.#entries.clear();
    this.#buckets.clear();
  }

  /** Checks the instance as soon as a follow-up slot is free (event-triggered), then keeps it on its cadence. */
  now(id: string): void {
    this.#atOnce(id, true);
  }

  /**
   * Checks the instance at once as one of the cadence's checks (not a follow-up): the instances
   * already held when monitoring starts, whose statuses may be stale, are not a burst of news to
   * take turns with, and 15,000 of them behind the follow-up cap would miss their interval.
   */
  resume(id: string): void {
    this.#atOnce(id, false);
  }

  #atOnce(id: string, followUp: boolean): void {
    if (this.#stopped) return;
    let entry = this.#entries.get(id);
    if (!entry) {
      entry = { phase: phaseOf(id, this.#options.interval), failures: 0, lastAt: this.#offset(this.#clock.now()), due: undefined, slot: undefined, running: undefined, again: false };
      this.#entries.set(id, entry);
    }
    if (entry.running) {
      entry.again = true;
      return;
    }
    this.#unschedule(id, entry);
    this.#run(id, entry, this.#clock.now(), followUp);
  }

  /**
   * Takes the instance onto the cadence: an instance this node just took over from another, which
   * checked it on the same phase. It is first checked at its next phase point, or at once when
   * its last phase point came after `missedSince` (the other node was not heard of then, so that
   * check may never have been made).
   */
  adopt(id: string, missedSince?: number): void {
    if (this.#stopped || this.#entries.has(id)) return;
    const now = this.#clock.now();
    const { interval } = this.#options;
    const phase = phaseOf(id, interval);
    const entry: Entry = { phase, failures: 0, lastAt: this.#offset(now), due: undefined, slot: undefined, running: undefined, again: false };
    this.#entries.set(id, entry);
    const next = phase + Math.ceil((now - phase) / interval) * interval;
    // Made late, the missed check counts as the one due then: the next stays on the phase.
    if (missedSince !== undefined && next - interval >= missedSince && next !== now) this.#run(id, entry, next - interval);
    else this.#schedule(id, entry, next);
  }

  /** The instances on this check's cadence. */
  ids(): string[] {
    return [...this.#entries.keys()];
  }

  /** Whether the instance is on this check's cadence. */
  has(id: string): boolean {
    return this.#entries.has(id);
  }

  /** Forgets the instance and aborts its running check (DEREGISTERED). */
  remove(id: string): void {
    const entry = this.#entries.get(id);
    if (!entry) return;
    entry.running?.cancel();
    this.#unschedule(id, entry);
    this.#entries.delete(id);
  }

  /** What the scheduler knows of one instance (for tests and diagnostics). */
  stateOf(id: string): { readonly failures: number; readonly due: number | undefined; readonly running: boolean } | undefined {
    const entry = this.#entries.get(id);
    return entry && { failures: entry.failures, due: entry.due === undefined ? undefined : entry.due + this.#epoch, running: entry.running !== undefined };
  }

  /** Runs the checks whose slot has come. Called by the timer; public so tests can drive a fake clock. */
  tick(): void {
    if (this.#stopped) return;
    const now = this.#clock.now();
    if (now - this.#epoch > REBASE_AFTER_MS) this.#rebase(now);
    const current = this.#slotOf(now);
    // After a long stall walking every empty slot costs more than looking at the few buckets.
    const slots = current - this.#lastSlot > this.#buckets.size
      ? [...this.#buckets.keys()].filter((slot) => slot <= current).sort((a, b) => a - b)
      : range(this.#lastSlot + 1, current);
    this.#lastSlot = current;
    for (const slot of slots) {
      const bucket = this.#buckets.get(slot);
      if (!bucket) continue;
      this.#buckets.delete(slot);
      for (const id of bucket) {
        const entry = this.#entries.get(id);
        if (!entry || entry.running) continue;
        const due = entry.due! + this.#epoch;
        entry.due = undefined;
        entry.slot = undefined;
        // The slot may come up to one granularity before the due instant; the cadence counts from the due one.
        this.#run(id, entry, due);
      }
    }
  }

  /**
   * Runs one check when the limiters let it; `followUp`: an event asked for it (see `followUps`).
   * While it waits in line it holds its cancellation and one callback, nothing more.
   */
  #run(id: string, entry: Entry, at: number, followUp = false): void {
    const cancellation = new Cancellation();
    entry.running = cancellation;
    entry.lastAt = this.#offset(at);
    const { limiter, followUps, followUpHoldMs = FOLLOW_UP_HOLD_MS } = this.#options;
    const begin = () => this.#begin(id, entry, cancellation);
    if (followUp && followUps) inFollowUpSlot(followUps, limiter, followUpHoldMs, () => cancellation.cancelled, begin);
    else limiter.submit(begin);
  }

  /** The check, once it has its slot, through to its completion (never rejects). */
  #begin(id: string, entry: Entry, cancellation: Cancellation): Promise<void> {
    if (cancellation.cancelled) {
      this.#completed(id, entry, cancellation, 'skipped');
      return Promise.resolve();
    }
    const { check, log, name, observe } = this.#options;
    const began = performance.now();
    let checked: Promise<CheckOutcome>;
    try {
      checked = check(id, cancellation);
    } catch (error) {
      checked = Promise.reject(error);
    }
    return checked
      .catch((error: unknown) => {
        // An updater bug must not end the schedule (SBA keeps its triggers alive after errors).
        log.error(`${name} check of ${id} failed: ${messageOf(error)}`);
        return 'error' as const;
      })
      .then((outcome) => {
        if (observe && (outcome === 'ok' || outcome === 'error')) observe(outcome, (performance.now() - began) / 1000);
        this.#completed(id, entry, cancellation, outcome);
      });
  }

  #completed(id: string, entry: Entry, cancellation: Cancellation, outcome: CheckOutcome): void {
    // Removed or replaced meanwhile (deregistered, stopped): the result is not ours to schedule.
    if (this.#stopped || this.#entries.get(id) !== entry || entry.running !== cancellation) return;
    entry.running = undefined;
    if (outcome === 'gone') {
      this.remove(id);
      return;
    }
    if (outcome === 'error') entry.failures += 1;
    else if (outcome === 'ok') entry.failures = 0;
    const now = this.#clock.now();
    if (entry.again) {
      entry.again = false;
      this.#run(id, entry, now, true);
      return;
    }
    this.#schedule(id, entry, nextDue(entry.lastAt + this.#epoch, now, entry.failures, entry.phase, this.#options, this.#granularity));
  }

  #schedule(id: string, entry: Entry, due: number): void {
    // Never into a slot already passed: it would not be visited again.
    const slot = Math.max(this.#slotOf(due), this.#lastSlot + 1);
    entry.due = this.#offset(due);
    entry.slot = (slot - this.#slotOf(this.#epoch)) | 0;
    const bucket = this.#buckets.get(slot);
    if (bucket) bucket.add(id);
    else this.#buckets.set(slot, new Set([id]));
  }

  #unschedule(id: string, entry: Entry): void {
    if (entry.slot === undefined) return;
    const slot = entry.slot + this.#slotOf(this.#epoch);
    const bucket = this.#buckets.get(slot);
    if (bucket?.delete(id) && bucket.size === 0) this.#buckets.delete(slot);
    entry.due = undefined;
    entry.slot = undefined;
  }

  /**
   * An instant as an offset from the epoch, made an int32 by `| 0`: a difference of two large
   * numbers is a boxed double even when it is a small integer, and storing one would turn the
   * field into a boxed-double field in every entry.
   */
  #offset(time: number): number {
    return (time - this.#epoch) | 0;
  }

  /** Moves the epoch to `now`, every entry's instants with it (once every few days). */
  #rebase(now: number): void {
    const shift = now - this.#epoch;
    const slotShift = this.#slotOf(now) - this.#slotOf(this.#epoch);
    this.#epoch = now;
    for (const entry of this.#entries.values()) {
      entry.lastAt = (entry.lastAt - shift) | 0;
      if (entry.due !== undefined) entry.due = (entry.due - shift) | 0;
      if (entry.slot !== undefined) entry.slot = (entry.slot - slotShift) | 0;
    }
  }

  #slotOf(time: number): number {
    return Math.floor(time / this.#granularity);
  }
}

/** 200 slots per interval: late by at most 0.5 % of it, and checks spread evenly rather than in 20 bursts. */
function granularityOf(interval: number): number {
  return Math.min(1000, Math.max(10, Math.floor(interval / 200)));
}

function range(from: number, to: number): number[] {
  const result: number[] = [];
  for (let slot = from; slot <= to; slot += 1) result.push(slot);
  return result;
}
