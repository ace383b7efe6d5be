import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { ConcurrencyLimiter, type TaskLine } from './concurrency-limiter.js';

/** How often the governor looks at the event loop while follow-ups are waiting or held back. */
export const GOVERNOR_TICK_MS = 20;
/** Above this share of the last tick spent running callbacks, the loop is busy: follow-ups halve. */
export const BUSY_UTILIZATION = 0.7;

/** The share of time the event loop spent running callbacks since the last call (0 to 1). */
export type LoopLoad = () => number;

/** The event loop's utilization since the last call, from Node's own count. */
export function eventLoopLoad(): LoopLoad {
  let last: EventLoopUtilization = performance.eventLoopUtilization();
  return () => {
    const now = performance.eventLoopUtilization();
    const since = performance.eventLoopUtilization(now, last);
    last = now;
    return since.utilization;
  };
}

export interface FollowUpGovernorOptions {
  /** `max-concurrent-follow-ups`: the cap when the loop has room. */
  readonly max: number;
  readonly load?: LoopLoad;
  readonly tickMs?: number;
}

/**
 * The line of follow-ups (checks an event asked for), whose cap follows how busy the event loop
 * is: halved after each tick in which the loop ran callbacks more than BUSY_UTILIZATION of the
 * time, one more after each tick with room, between 1 and `max`. A burst of first registrations
 * otherwise keeps the loop saturated with their health, detection and info calls, and every
 * request served meanwhile waits behind them (bench/REPORT.md, burst); with the governor the
 * follow-ups take what the loop has to spare and finish a little later instead. Cadence checks
 * never pass here. The timer runs only while follow-ups wait or the cap is below `max`.
 */
export class FollowUpGovernor implements TaskLine {
  readonly #limiter: ConcurrencyLimiter;
  readonly #load: LoopLoad;
  readonly #tickMs: number;
  #max: number;
  #cap: number;
  #timer: NodeJS.Timeout | undefined;
  #stopped = false;

  constructor(options: FollowUpGovernorOptions) {
    this.#max = options.max;
    this.#cap = options.max;
    this.#limiter = new ConcurrencyLimiter(options.max);
    this.#load = options.load ?? eventLoopLoad();
    this.#tickMs = options.tickMs ?? GOVERNOR_TICK_MS;
  }

  /** The cap now. */
  get cap(): number {
    return this.#cap;
  }

  get active(): number {
    return this.#limiter.active;
  }

  get waiting(): number {
    return this.#limiter.waiting;
  }

  run<T>(task: () => Promise<T>): Promise<T> {
    this.#watch();
    return this.#limiter.run(task);
  }

  submit(start: () => Promise<unknown>): void {
    this.#watch();
    this.#limiter.submit(start);
  }

  /** A new `max-concurrent-follow-ups` (reload). */
  resize(max: number): void {
    this.#max = max;
    this.#setCap(Math.min(this.#cap, max));
    this.#watch();
  }

  /** One look at the load: what each tick does (tests call it with a load of their own). */
  adjust(): void {
    const busy = this.#load() > BUSY_UTILIZATION;
    this.#setCap(busy ? Math.max(1, Math.floor(this.#cap / 2)) : Math.min(this.#max, this.#cap + 1));
    if (this.#cap === this.#max && this.#limiter.waiting === 0) this.#unwatch();
  }

  /** Ends the timer for good (the monitor stops). */
  stop(): void {
    this.#stopped = true;
    this.#unwatch();
  }

  #setCap(cap: number): void {
    if (cap === this.#cap) return;
    this.#cap = cap;
    this.#limiter.resize(cap);
  }

  #watch(): void {
    if (this.#timer !== undefined || this.#stopped) return;
    // The load of the loop before now says nothing about the follow-ups: start counting here.
    this.#load();
    this.#timer = setInterval(() => this.adjust(), this.#tickMs);
    this.#timer.unref();
  }

  #unwatch(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
