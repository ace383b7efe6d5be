/** Whether a key (a client address and user name) may start one more verification, and if not, when it may. */
export type Budget = { readonly allowed: true } | { readonly allowed: false; readonly retryAfterMs: number };

export interface AddressThrottleOptions {
  /** Verifications an address may have failed (or running) before it must wait: the bucket's size. */
  readonly burst: number;
  /** One more attempt comes back this often. */
  readonly refillMs: number;
  /** Addresses remembered at most; the least recently seen is forgotten first. */
  readonly maxAddresses: number;
}

interface Bucket {
  tokens: number;
  /** When `tokens` was last brought up to date (whole refill periods only). */
  refilledAt: number;
}

/**
 * Slows down guessing with a token bucket per key (the authenticator's: a client address and a
 * user name; "address" below is that key): each new
 * verification takes a token, a success gives it back, so only failures (and verifications still
 * running) use up the budget. Once it is spent the address gets one attempt per `refillMs`.
 *
 * Memory is bounded whatever the number of addresses: an address whose bucket is full is not
 * stored at all, and past `maxAddresses` the least recently seen is forgotten (it starts again
 * with a full bucket, which costs the attacker who cycled through that many addresses nothing
 * more than the global verification queue already bounds).
 */
export class AddressThrottle {
  /** Map order is recency order: touched entries are re-inserted at the end. */
  readonly #buckets = new Map<string, Bucket>();

  constructor(
    private readonly options: AddressThrottleOptions,
    private readonly now: () => number = Date.now,
  ) {}

  /** Addresses with a bucket that is not full. */
  get size(): number {
    return this.#buckets.size;
  }

  /** Takes one attempt from the address's budget, if there is one left. */
  take(address: string): Budget {
    const now = this.now();
    const bucket = this.#refilled(address, now) ?? { tokens: this.options.burst, refilledAt: now };
    if (bucket.tokens < 1) {
      this.#keep(address, bucket);
      return { allowed: false, retryAfterMs: Math.max(1, bucket.refilledAt + this.options.refillMs - now) };
    }
    bucket.tokens -= 1;
    this.#keep(address, bucket);
    return { allowed: true };
  }

  /** Gives back the attempt a verification took: it succeeded, or never ran. */
  refund(address: string): void {
    const bucket = this.#refilled(address, this.now());
    if (!bucket) return;
    bucket.tokens += 1;
    if (bucket.tokens >= this.options.burst) this.#buckets.delete(address);
  }

  /** The address's bucket brought up to date, or undefined when it is full (or unknown). */
  #refilled(address: string, now: number): Bucket | undefined {
    const bucket = this.#buckets.get(address);
    if (!bucket) return undefined;
    const periods = Math.floor((now - bucket.refilledAt) / this.options.refillMs);
    if (periods > 0) {
      bucket.tokens += periods;
      bucket.refilledAt += periods * this.options.refillMs;
    }
    if (bucket.tokens < this.options.burst) return bucket;
    this.#buckets.delete(address);
    return undefined;
  }

  #keep(address: string, bucket: Bucket): void {
    this.#buckets.delete(address);
    this.#buckets.set(address, bucket);
    while (this.#buckets.size > this.options.maxAddresses) {
      this.#buckets.delete(this.#buckets.keys().next().value as string);
    }
  }
}
