const MAX_DELAY = 2 ** 31 - 1;

/**
 * Ids to retire at given instants, with one timer for all of them. Entries are kept in the
 * order they were scheduled, and a queue is meant for instants that come in that order (every
 * deregistration waits the same retention): the timer is armed for the first entry only, and an
 * entry scheduled earlier than one before it waits for that one. Per entry that is one map entry,
 * where a timer each cost a Timeout, its closure and a map entry (a node holds up to
 * `max-deregistered-instances` of them).
 */
export class RetirementQueue {
  /** id → due instant, as milliseconds after `#epoch` (small integers, held unboxed). */
  readonly #due = new Map<string, number>();
  readonly #epoch: number;
  #timer: NodeJS.Timeout | undefined;
  #timerAt = Number.POSITIVE_INFINITY;

  constructor(private readonly retire: (id: string) => void, private readonly now: () => number) {
    this.#epoch = now();
  }

  get size(): number {
    return this.#due.size;
  }

  has(id: string): boolean {
    return this.#due.has(id);
  }

  /** Retires `id` at `at` (ms since 1970), after every entry scheduled before it; replaces an earlier schedule of it. */
  schedule(id: string, at: number): void {
    this.#due.delete(id);
    this.#due.set(id, Math.max(0, Math.round(at - this.#epoch)));
    this.#arm();
  }

  cancel(id: string): void {
    this.#due.delete(id);
    // The timer may now be early for the new first entry: it re-arms when it fires.
    if (this.#due.size === 0) this.clear();
  }

  clear(): void {
    this.#due.clear();
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
  }

  #arm(): void {
    const first = this.#due.values().next();
    if (first.done) return;
    const at = first.value;
    if (this.#timer !== undefined && this.#timerAt <= at) return;
    clearTimeout(this.#timer);
    this.#timerAt = at;
    // A longer delay than setTimeout takes would fire at once; the timer then re-arms.
    this.#timer = setTimeout(() => this.#fire(), Math.min(MAX_DELAY, Math.max(0, this.#epoch + at - this.now())));
    this.#timer.unref();
  }

  #fire(): void {
    this.#timer = undefined;
    this.#timerAt = Number.POSITIVE_INFINITY;
    const now = this.now() - this.#epoch;
    for (const [id, at] of this.#due) {
      if (at > now) break;
      this.#due.delete(id);
      this.retire(id);
    }
    this.#arm();
  }
}
