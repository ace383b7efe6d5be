import type { Logger } from './contract/basics.js';

/**
 * A warning logged at most once per `everyMs`, however often its cause recurs: under a flood a
 * line per request would itself be the denial of service (and fill the journal). The next line
 * after a quiet spell says how many occurrences went unlogged.
 */
export class OccasionalWarning {
  #lastAt: number | undefined;
  #unlogged = 0;

  constructor(
    private readonly log: Logger,
    private readonly everyMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records one occurrence; `message` is only built when a line is actually written. */
  note(message: () => string): void {
    const now = this.now();
    if (this.#lastAt !== undefined && now - this.#lastAt < this.everyMs) {
      this.#unlogged += 1;
      return;
    }
    const unlogged = this.#unlogged;
    this.#lastAt = now;
    this.#unlogged = 0;
    this.log.warn(unlogged > 0 ? `${message()} (and ${unlogged} more since the last such warning)` : message());
  }
}
