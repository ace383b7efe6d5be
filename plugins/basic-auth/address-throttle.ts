import { isIPv6 } from 'node:net';

/** Whether an address may start one more verification, and if not, when it may. */
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
 * Slows down guessing from one client address with a token bucket per address: each new
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

/**
 * The key a client address is throttled under. IPv4 (also when written as IPv4-mapped IPv6) is
 * the address itself; IPv6 is its /64 prefix, the block one subscriber usually holds, so a
 * single host cannot get a fresh budget per address by cycling through its 2^64.
 */
export function addressKey(remoteAddress: string | undefined): string {
  if (remoteAddress === undefined || remoteAddress === '') return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!isIPv6(remoteAddress)) return remoteAddress;
  return `${expandIPv6(remoteAddress.replace(/%.*$/, '')).slice(0, 4).join(':')}::/64`;
}

/** The eight groups of an IPv6 address, without leading zeros (an embedded IPv4 tail becomes two groups). */
function expandIPv6(address: string): string[] {
  const withoutV4 = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`);
  const [head = '', tail] = withoutV4.split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const zeros = tail === undefined ? [] : Array<string>(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => parseInt(group, 16).toString(16));
}
