/**
 * A small LRU of recent verification results, keyed by a SHA-256 digest of the presented
 * credentials (never the credentials themselves).
 *
 * Why: scrypt costs ~50 ms of CPU per check by design, and a dashboard polling every second
 * would otherwise spend that on every request. Why it is safe:
 * - a hit needs credentials checked before, so guessing still pays the full scrypt cost per attempt;
 * - a hit needs the exact credentials that were verified before (SHA-256 is preimage- and
 *   collision-resistant), and the stored digest does not give them back;
 * - the size is bounded (least recently used evicted first), so no request can grow memory;
 * - an entry expires `ttlMs` after its last use: one in use stays (a dashboard signed in during a
 *   flood of wrong passwords must not need a fresh check, which the flood could hold up), an
 *   unused one goes. A reload builds a new cache, so a changed config is always checked again.
 */
export class VerificationCache<V> {
  readonly #entries = new Map<string, { value: V; expires: number }>();

  constructor(
    private readonly maxEntries: number,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string): V | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    this.#entries.delete(key);
    const now = this.now();
    if (entry.expires <= now) return undefined;
    entry.expires = now + this.ttlMs;
    // Re-inserting keeps Map order = recency order.
    this.#entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, expires: this.now() + this.ttlMs });
    while (this.#entries.size > this.maxEntries) {
      this.#entries.delete(this.#entries.keys().next().value as string);
    }
  }

  delete(key: string): void {
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#entries.size;
  }
}
