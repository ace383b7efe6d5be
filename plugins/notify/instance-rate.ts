import { parseDuration } from '../../core/plugin-api.js';
import type { InstanceNotification } from '../../core/kits/notify-channel/index.js';
import type { Entry } from './batcher.js';
import type { Completion } from './completion.js';
import { sameNotifiedStatus } from './status-class.js';

/** `notify.per-instance-rate`: at most `count` notifications of one instance in any `windowMs`; 0 is off. */
export interface InstanceRate {
  readonly count: number;
  readonly windowMs: number;
}

const MINUTE = 60_000;
const RATE = /^\s*(\d+)\s*(?:\/\s*(\S+)\s*)?$/;

/** `6` (a minute) or `N/DURATION` (`6/1m`, `3/10s`); undefined when it is neither. */
export function parseInstanceRate(value: unknown): InstanceRate | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && value >= 0 ? { count: value, windowMs: MINUTE } : undefined;
  if (typeof value !== 'string') return undefined;
  const match = RATE.exec(value);
  if (!match) return undefined;
  const windowMs = match[2] === undefined ? MINUTE : parseDuration(match[2]);
  return windowMs !== undefined && windowMs >= 1 ? { count: Number(match[1]), windowMs } : undefined;
}

export function isInstanceRate(value: unknown): value is InstanceRate {
  const rate = value as InstanceRate | null;
  return typeof rate === 'object' && rate !== null && Number.isInteger(rate.count) && rate.count >= 0 && Number.isFinite(rate.windowMs) && rate.windowMs >= 1;
}

/** The changes of one instance kept back, folded into the latest. */
interface Withheld {
  /** The latest change: what the folded notification says. */
  entry: Entry;
  /** The status before the first kept-back status change: the folded notification's `from`. */
  from: string;
  /** Earlier changes folded into it. */
  folded: number;
  /** Their outbox items, done when the folded notification is. */
  readonly earlier: Completion[];
  timer?: NodeJS.Timeout;
}

interface InstanceState {
  /** When its notifications within the window went on, oldest first (at most `count`). */
  readonly sent: number[];
  withheld?: Withheld;
}

export interface InstanceRateOptions {
  readonly rate: InstanceRate;
  /** Whether any channel would send this change (changes none would send do not count). */
  readonly wanted: (notification: InstanceNotification) => boolean;
  /** Where an allowed change goes on (storm control and grouping). */
  readonly next: (entry: Entry) => void;
  /** Counts each change kept back. */
  readonly counted: () => void;
}

/**
 * The notification rate of each instance: at most `count` changes of one instance in any
 * `windowMs` go on; beyond it, its changes are kept back and folded into one, the latest, which
 * goes on as soon as the window has room again (a timer: the latest state is never lost). The
 * folded notification reports the status before the first change kept back (`from`) and how many
 * earlier changes it replaced (`coalesced`, shown as "(and 4 earlier changes)"); when the
 * instance ended where it started, nothing is sent. The outbox items of the folded changes are
 * done once the folded notification is. An instance flapping, or reporting a new status on every
 * check, thus costs each channel a few messages a minute, whatever it does.
 */
export class InstanceRateLimit {
  readonly #instances = new Map<string, InstanceState>();
  readonly #sweep: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(private readonly options: InstanceRateOptions) {
    // Instances with nothing sent within the window and nothing kept back are forgotten.
    this.#sweep = options.rate.count > 0 ? setInterval(() => this.#forgetIdle(), options.rate.windowMs) : undefined;
    this.#sweep?.unref();
  }

  add(entry: Entry): void {
    const { rate } = this.options;
    const id = entry.notification.instance.id;
    const state = this.#instances.get(id);
    if (rate.count === 0 || (!state?.withheld && !this.options.wanted(entry.notification))) {
      this.options.next(entry);
      return;
    }
    const current = state ?? { sent: [] };
    if (!state) this.#instances.set(id, current);
    this.#expire(current);
    if (!current.withheld && current.sent.length < rate.count) {
      current.sent.push(Date.now());
      this.options.next(entry);
      return;
    }
    this.#withhold(id, current, entry);
  }

  /** Whether a change of this instance is kept back, waiting for room in its window. */
  holds(id: string): boolean {
    return this.#instances.get(id)?.withheld !== undefined;
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#sweep);
    for (const state of this.#instances.values()) clearTimeout(state.withheld?.timer);
    this.#instances.clear();
  }

  #withhold(id: string, state: InstanceState, entry: Entry): void {
    this.options.counted();
    // Kept until the folded notification is handed on: a durable outbox must not forget it before.
    entry.completion.hold();
    const previous = state.withheld;
    if (!previous) {
      state.withheld = { entry, from: entry.notification.from, folded: 0, earlier: [] };
    } else {
      previous.earlier.push(previous.entry.completion);
      previous.folded += 1 + previous.entry.notification.coalesced;
      // A (de)registration restarts the status at UNKNOWN: a run of status changes starts again after it.
      const chained = previous.entry.notification.type === 'STATUS_CHANGED' && entry.notification.type === 'STATUS_CHANGED';
      if (!chained) previous.from = entry.notification.from;
      previous.entry = entry;
    }
    const withheld = state.withheld!;
    if (state.sent.length < this.options.rate.count) {
      this.#release(id, state);
    } else if (!withheld.timer) {
      withheld.timer = setTimeout(() => this.#release(id, state), Math.max(0, state.sent[0]! + this.options.rate.windowMs - Date.now()));
    }
  }

  /** Hands on the folded notification (or nothing, when the instance is back where it started). */
  #release(id: string, state: InstanceState): void {
    const withheld = state.withheld;
    if (this.#stopped || !withheld) return;
    clearTimeout(withheld.timer);
    state.withheld = undefined;
    this.#expire(state);
    const latest = withheld.entry.notification;
    const notification: InstanceNotification = { ...latest, from: withheld.from, coalesced: latest.coalesced + withheld.folded };
    const { completion } = withheld.entry;
    // The folded changes share its fate: done with it, or left to the node that took it over.
    void completion.done.then(() => {
      for (const earlier of withheld.earlier) earlier.release();
    }, () => {
      for (const earlier of withheld.earlier) earlier.abandon();
    });
    if (notification.type !== 'STATUS_CHANGED' || !sameNotifiedStatus(notification.from, notification.to)) {
      state.sent.push(Date.now());
      this.options.next({ notification, completion });
    }
    completion.release();
    if (state.sent.length === 0) this.#instances.delete(id);
  }

  #expire(state: InstanceState): void {
    const since = Date.now() - this.options.rate.windowMs;
    while (state.sent.length > 0 && state.sent[0]! <= since) state.sent.shift();
  }

  #forgetIdle(): void {
    for (const [id, state] of this.#instances) {
      this.#expire(state);
      if (!state.withheld && state.sent.length === 0) this.#instances.delete(id);
    }
  }
}
