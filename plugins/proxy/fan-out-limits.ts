import { HttpError } from '../../core/plugin-api.js';

/** `Retry-After` of a refused fan-out: the dashboard's next poll is about then anyway. */
const RETRY_AFTER_SECONDS = 1;

/**
 * How many fan-outs run at once (`proxy.max-concurrent-fan-outs`): each may hold up to its byte
 * budget, so together they hold at most limit × budget. Past the limit a fan-out is refused at
 * once (503, Retry-After) rather than queued: a queue would hold the requests, and a client that
 * retries is the better judge of whether it still wants the answer.
 */
export class FanOutSlots {
  #running = 0;

  constructor(private readonly limit: number) {}

  /** Takes a slot and returns its release (idempotent), or throws the 503. */
  enter(): () => void {
    if (this.#running >= this.limit) {
      throw new HttpError(503, `too many fan-outs at once (proxy.max-concurrent-fan-outs = ${this.limit}); try again shortly`, { 'retry-after': String(RETRY_AFTER_SECONDS) });
    }
    this.#running += 1;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running -= 1;
    };
  }
}

/**
 * The bytes of answers one fan-out may hold together (`proxy.fan-out-max-bytes`), shared by its
 * instances as their bodies stream in: the first chunk that does not fit cuts that instance's
 * answer, and what the instance had taken is given back (its partial body is dropped).
 */
export class ByteBudget {
  #left: number;

  constructor(readonly size: number) {
    this.#left = size;
  }

  /** Takes `bytes` when they fit; false (nothing taken) when they do not. */
  take(bytes: number): boolean {
    if (bytes > this.#left) return false;
    this.#left -= bytes;
    return true;
  }

  giveBack(bytes: number): void {
    this.#left = Math.min(this.size, this.#left + bytes);
  }
}
