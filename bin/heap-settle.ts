import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Gives back the heap a burst left committed, once the daemon is steady again.
 *
 * A full collection compacts only the old generation's emptiest pages, and V8's memory reducer,
 * which would compact the rest, waits for a moment when JavaScript allocates little: a daemon
 * checking thousands of instances a second never has one. After a burst (a fleet registering at
 * once, a reload of every instance) the old generation's pages stay partly empty and committed for
 * as long as no further burst comes. A few full collections once the burst is over, each moving
 * what lives out of some of those pages, return them.
 */

/** What is sampled: V8's old generation, in bytes. */
export interface OldSpace {
  readonly used: number;
  readonly committed: number;
}

export interface SettleOptions {
  /** Committed but unused bytes below which compacting is not worth a pause. */
  readonly minSlack: number;
  /** How much the committed size may grow between two samples and still count as steady. */
  readonly steadyGrowth: number;
  /** Consecutive steady samples before compacting: one is a lull inside a burst. */
  readonly steadySamples: number;
  /** Samples after a compaction that gave back little before the same heap is tried again; doubles each time, up to `maxRetrySamples`. */
  readonly retrySamples: number;
  readonly maxRetrySamples: number;
}

/** At one sample every 5 s: tried again after 1 minute, then 2, 4, 8 and 16 at most. */
export const DEFAULT_SETTLE_OPTIONS: SettleOptions = { minSlack: 32 * 2 ** 20, steadyGrowth: 2 ** 20, steadySamples: 2, retrySamples: 12, maxRetrySamples: 192 };

/**
 * Decides, sample by sample, when to compact: the old generation stopped growing (V8 commits more
 * of it only while more is promoted than its collections free, as in a burst) and much more of it
 * is committed than used. After a compaction, the next one waits until the heap grew past what was
 * left committed, or, when the compaction gave back little (the burst was not over yet, or what
 * is left is what V8 will not move), a while that doubles each time: a heap that stays fragmented
 * is not compacted again and again.
 */
export class SettleDecision {
  readonly #options: SettleOptions;
  #previousCommitted: number | undefined;
  #steady = 0;
  #committedAfterLast = 0;
  #sinceLast = 0;
  #retryAfter: number;

  constructor(options: SettleOptions = DEFAULT_SETTLE_OPTIONS) {
    this.#options = options;
    this.#retryAfter = options.retrySamples;
  }

  /** True when this sample calls for a compaction; then `compacted` is to be told what it did. */
  shouldCompact(sample: OldSpace): boolean {
    const grew = this.#previousCommitted === undefined || sample.committed > this.#previousCommitted + this.#options.steadyGrowth;
    this.#steady = grew ? 0 : this.#steady + 1;
    this.#previousCommitted = sample.committed;
    this.#sinceLast += 1;
    return this.#steady >= this.#options.steadySamples
      && sample.committed - sample.used >= this.#options.minSlack
      && (sample.committed >= this.#committedAfterLast + this.#options.minSlack || this.#sinceLast >= this.#retryAfter);
  }

  compacted(before: OldSpace, after: OldSpace): void {
    const gaveBackMuch = before.committed - after.committed >= this.#options.minSlack;
    this.#retryAfter = gaveBackMuch ? this.#options.retrySamples : Math.min(2 * this.#retryAfter, this.#options.maxRetrySamples);
    this.#committedAfterLast = after.committed;
    this.#previousCommitted = after.committed;
    this.#steady = 0;
    this.#sinceLast = 0;
  }
}

export function readOldSpace(): OldSpace {
  const old = getHeapSpaceStatistics().find((space) => space.space_name === 'old_space');
  return { used: old?.space_used_size ?? 0, committed: old?.space_size ?? 0 };
}

/**
 * Another step follows while the last one gave back at least this much and at least this much is
 * still committed and unused.
 */
const STEP_WORTH_BYTES = 4 * 2 ** 20;
/** Steps are apart so the loop serves what waited during one before the next pause. */
const STEP_GAP_MS = 250;
const MAX_STEPS = 16;

/** Whether the operator started Node with `--optimize-for-size`: then it stays on, not turned off after a step. */
const OPERATOR_OPTIMIZES_FOR_SIZE = /--optimize[-_]for[-_]size\b/.test([...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' '));

/**
 * One full collection that compacts as V8 does when told to save memory: it moves the live objects
 * out of pages with a fifth or more of them free, a few MB at a time, and returns the emptied pages.
 * A plain full collection moves objects only out of nearly empty pages: pages a burst left half
 * full stay committed, however many. Moving everything at once instead (`--compact-on-every-full-gc`)
 * needs new pages for all of it before the old ones go, and the process's peak would grow by as
 * much as it gives back. V8 has no public call for this. The collection is run through the `gc`
 * function V8 gives a context created while `--expose-gc` is on (the daemon's own global scope
 * never gets one), with V8's `--optimize-for-size` on for that one call only. Returns the bytes of
 * old generation given back.
 */
export function compactStep(): number {
  const before = readOldSpace().committed;
  const collect = exposedGc();
  if (OPERATOR_OPTIMIZES_FOR_SIZE) {
    collect();
  } else {
    setFlagsFromString('--optimize-for-size');
    try {
      collect();
    } finally {
      setFlagsFromString('--no-optimize-for-size');
    }
  }
  return before - readOldSpace().committed;
}

/** One plain (not compacting) full collection, as V8 would run it. */
export function fullCollection(): void {
  exposedGc()();
}

let gcFunction: (() => void) | undefined;

function exposedGc(): () => void {
  if (gcFunction) return gcFunction;
  const global = (globalThis as { gc?: () => void }).gc;
  if (global) return (gcFunction = global);
  setFlagsFromString('--expose-gc');
  try {
    gcFunction = runInNewContext('gc') as () => void;
  } finally {
    setFlagsFromString('--no-expose-gc');
  }
  return gcFunction;
}

export interface Settled {
  readonly before: OldSpace;
  readonly after: OldSpace;
  readonly steps: number;
  /** The longest single pause, in ms. */
  readonly longestPauseMs: number;
}

export interface SettleRun {
  readonly everyMs?: number;
  readonly decision?: SettleDecision;
}

/**
 * Samples the old generation every `everyMs` and, when the decision says so, compacts it, in steps
 * a quarter of a second apart while a step gives back much and leaves much unused. The timers
 * never keep the process alive. Returns the function that stops them.
 */
export function settleHeapAfterBursts(report: (settled: Settled) => void, run: SettleRun = {}): () => void {
  const decision = run.decision ?? new SettleDecision();
  let stepping: NodeJS.Timeout | undefined;
  let stopped = false;

  const compact = (before: OldSpace, steps: number, longestPauseMs: number) => {
    const started = performance.now();
    const freed = compactStep();
    const pause = Math.max(longestPauseMs, performance.now() - started);
    const left = readOldSpace();
    if (!stopped && freed >= STEP_WORTH_BYTES && left.committed - left.used >= STEP_WORTH_BYTES && steps + 1 < MAX_STEPS) {
      stepping = setTimeout(() => compact(before, steps + 1, pause), STEP_GAP_MS).unref();
      return;
    }
    stepping = undefined;
    const after = readOldSpace();
    decision.compacted(before, after);
    report({ before, after, steps: steps + 1, longestPauseMs: pause });
  };

  const sampler = setInterval(() => {
    if (stepping) return;
    const sample = readOldSpace();
    if (decision.shouldCompact(sample)) compact(sample, 0, 0);
  }, run.everyMs ?? 5_000).unref();
  return () => {
    stopped = true;
    clearInterval(sampler);
    clearTimeout(stepping);
  };
}
