/** What `submit` answers: the task's result, or a refusal with a hint of when to come back. */
export type Admission<T> =
  | { readonly admitted: true; readonly result: Promise<T> }
  | { readonly admitted: false; readonly retryAfterMs: number };

/** Assumed length of a run until one has been measured (scrypt at the default cost takes ~50 ms). */
const FIRST_GUESS_MS = 100;

/**
 * Runs password verifications (scrypt: CPU- and memory-hard by design) at most `concurrency` at
 * a time, with at most `maxQueued` more waiting in FIFO order; beyond that a verification is
 * refused at once instead of queued. Without the bound, a flood of distinct wrong passwords puts
 * every one of them on libuv's threadpool together: the CPU goes to scrypt, and the event loop,
 * health checks and every other use of the threadpool (file reads, DNS lookups) wait behind it.
 * With it, a flood costs at most `concurrency` threads, and its excess gets a cheap refusal.
 */
export class BoundedVerifier {
  readonly #waiting: (() => void)[] = [];
  #running = 0;
  /** Moving average of how long a run takes, for the refusal's retry hint. */
  #averageMs: number | undefined;

  constructor(
    private readonly concurrency: number,
    private readonly maxQueued: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  get running(): number {
    return this.#running;
  }

  get waiting(): number {
    return this.#waiting.length;
  }

  /** Runs `task` now or once a slot frees up, or refuses it when the queue is full. */
  submit<T>(task: () => Promise<T>): Admission<T> {
    if (this.#running >= this.concurrency && this.#waiting.length >= this.maxQueued) {
      return { admitted: false, retryAfterMs: this.#drainEstimate() };
    }
    const result = new Promise<T>((resolve, reject) => {
      const start = () => {
        this.#running += 1;
        const started = this.now();
        // The slot is free before the result is delivered, so whoever reads it can submit again.
        const done = () => {
          this.#measured(this.now() - started);
          this.#running -= 1;
          this.#waiting.shift()?.();
        };
        // Through a promise, so a task that throws synchronously still frees its slot.
        Promise.resolve().then(task).then((value) => {
          done();
          resolve(value);
        }, (error: unknown) => {
          done();
          reject(error);
        });
      };
      if (this.#running < this.concurrency) start();
      else this.#waiting.push(start);
    });
    return { admitted: true, result };
  }

  /** How long until everything running and waiting now is done, at the measured pace. */
  #drainEstimate(): number {
    const runs = Math.ceil((this.#running + this.#waiting.length) / this.concurrency);
    return runs * (this.#averageMs ?? FIRST_GUESS_MS);
  }

  #measured(ms: number): void {
    this.#averageMs = this.#averageMs === undefined ? ms : 0.8 * this.#averageMs + 0.2 * ms;
  }
}
