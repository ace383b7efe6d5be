/**
 * The delay before retry `attempt` (1 = the first retry): "full jitter", a random wait between 0
 * and the exponential bound, so receivers that failed together are not hit again together.
 */
export function fullJitter(attempt: number, baseMs: number, capMs: number, random: () => number = Math.random): number {
  const bound = Math.min(capMs, baseMs * 2 ** Math.max(0, attempt - 1));
  return Math.floor(random() * bound);
}

/** `Retry-After` in ms: delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function retryAfterMs(value: string | undefined, now = Date.now()): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * A token bucket: `rate` tokens a second, at most `burst` saved up. Slack takes about one message
 * a second per webhook, so a burst drains at the receiver's pace instead of earning 429s.
 */
export class TokenBucket {
  #tokens: number;
  #at: number;

  constructor(readonly rate: number, readonly burst: number, now = Date.now()) {
    this.#tokens = burst;
    this.#at = now;
  }

  /** Takes a token and returns 0, or returns how many ms until one is there. */
  take(now = Date.now()): number {
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#at) / 1000) * this.rate);
    this.#at = now;
    if (this.#tokens >= 1) {
      this.#tokens -= 1;
      return 0;
    }
    return Math.ceil(((1 - this.#tokens) / this.rate) * 1000);
  }
}
