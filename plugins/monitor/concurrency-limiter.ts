/**
 * A global cap on checks in flight. Tasks beyond the cap wait in FIFO order; a hung instance
 * therefore costs one slot until its time-out and never blocks the queue behind it for longer.
 */
export class ConcurrencyLimiter {
  readonly #queue: (() => void)[] = [];
  #head = 0;
  #active = 0;

  constructor(private readonly max: number) {}

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#queue.length - this.#head;
  }

  /** Runs `task` when a slot is free. The task always starts asynchronously (never inside the caller's stack). */
  run<T>(task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#active += 1;
        // Through a promise, so a task that throws synchronously still frees its slot.
        Promise.resolve().then(task).then(resolve, reject).finally(() => {
          this.#active -= 1;
          this.#next();
        });
      };
      this.#queue.push(start);
      // A microtask, so a bus handler that triggers a check returns before the check begins.
      queueMicrotask(() => this.#next());
    });
  }

  #next(): void {
    while (this.#active < this.max && this.#head < this.#queue.length) {
      const start = this.#queue[this.#head]!;
      this.#head += 1;
      // Compact now and then instead of shift(), which is O(n) on a long queue.
      if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue.splice(0, this.#head);
        this.#head = 0;
      }
      start();
    }
  }
}
