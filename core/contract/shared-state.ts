import { defineToken } from './tokens.js';

/**
 * A small map of strings shared by every node of a cluster (in Redis with `cluster-redis`), or
 * kept in this process. For state a feature must not lose or hold twice when several nodes run
 * it: notification filters, reminder times, discovery's last good sets. Values are opaque text
 * (JSON is the usual choice); every operation may reject with `StoreUnavailableError`.
 */
export interface SharedMap {
  get(key: string): Promise<string | undefined>;
  /** Sets `key`; with `ttlMs` it disappears by itself that long from now. */
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** True when the key was there. */
  delete(key: string): Promise<boolean>;
  /** Every live entry (expired ones are gone). */
  entries(): Promise<[string, string][]>;
}

/**
 * An append-only log shared by every node, keeping about the newest `keep` values: for a trail
 * every node must show whole (the audit trail). Each value gets a position (1, 2, 3...) in the
 * order values were appended, whichever node appended them: an increasing whole number (at most
 * 16 digits), not necessarily consecutive, that keeps increasing even after the store lost its data.
 */
export interface SharedLog {
  /** Appends `value`; resolves with its position (greater than every position before it). */
  append(value: string): Promise<number>;
  /** Up to `count` values appended after position `after`, oldest first. */
  after(after: number, count: number): Promise<{ readonly position: number; readonly value: string }[]>;
}

export interface SharedState {
  /** The map called `name` (namespaced per plugin by convention: `notify.filters`). */
  map(name: string): SharedMap;
  /** The next value of the counter called `name`: 1, 2, 3... shared by every node. */
  next(name: string): Promise<number>;
  /**
   * The shared log called `name`, keeping about the newest `keep` values. Provided by clustering
   * plugins only: one process alone has no one to share it with, and keeps its own trail.
   */
  log?(name: string, keep: number): SharedLog;
}

export const SHARED_STATE = defineToken<SharedState>('vigil.shared-state');

/** Shared state kept in this process: what one node alone uses (the kernel's default for `SHARED_STATE`). */
export class LocalSharedState implements SharedState {
  readonly #maps = new Map<string, LocalMap>();
  readonly #counters = new Map<string, number>();

  map(name: string): SharedMap {
    let map = this.#maps.get(name);
    if (!map) this.#maps.set(name, (map = new LocalMap()));
    return map;
  }

  async next(name: string): Promise<number> {
    const value = (this.#counters.get(name) ?? 0) + 1;
    this.#counters.set(name, value);
    return value;
  }
}
class LocalMap implements SharedMap {
  readonly #entries = new Map<string, { value: string; expires: number }>();

  async get(key: string): Promise<string | undefined> {
    return this.#live(key)?.value;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    this.#entries.set(key, { value, expires: ttlMs === undefined ? Infinity : Date.now() + ttlMs });
  }

  async delete(key: string): Promise<boolean> {
    return this.#live(key) !== undefined && this.#entries.delete(key);
  }

  async entries(): Promise<[string, string][]> {
    const result: [string, string][] = [];
    for (const key of [...this.#entries.keys()]) {
      const entry = this.#live(key);
      if (entry) result.push([key, entry.value]);
    }
    return result;
  }

  #live(key: string): { value: string; expires: number } | undefined {
    const entry = this.#entries.get(key);
    if (entry && entry.expires <= Date.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }
}
