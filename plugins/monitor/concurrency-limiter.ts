import { Fifo } from '../../core/plugin-api.js';

/** Tasks started in one turn of the event loop, at most: then the loop gets to serve requests again. */
export const STARTS_PER_TURN = 4;

/** A line tasks wait in for a slot: a `ConcurrencyLimiter`, or one whose cap moves. */
export interface TaskLine {
  /** Runs `task` when a slot is free, never inside the caller's stack. */
  run<T>(task: () => Promise<T>): Promise<T>;
}

/**
 * A global cap on checks in flight. Tasks beyond the cap wait in FIFO order; a hung instance
 * therefore costs one slot until its time-out and never blocks the queue behind it for longer.
 * The line is bounded by what feeds it (each instance has at most one check of each kind
 * waiting or running). Tasks start at most STARTS_PER_TURN at a time, the rest after the event
 * loop's next pass over I/O: a burst of a thousand first registrations, each bringing health,
 * detection and info calls, would otherwise start its calls, and handle their answers, in a few
 * long turns during which no other request is read.
 *
 * Its job is capping and pacing starts; the runtime kit's `turnSlot` does another, yielding the
 * continuation of work that follows I/O (an answer's handling) to the requests read with it.
 */
export class ConcurrencyLimiter implements TaskLine {
  readonly #queue = new Fifo<() => void>();
  #active = 0;
  /** Tasks started in this turn of the event loop. */
  #startedInTurn = 0;
  /** The end of this turn is asked for (setImmediate, after the pass over I/O): the count starts again there. */
  #turnEnding = false;

  constructor(private max: number) {}

  /** A new cap (reload): more slots start waiting tasks at once; fewer let running ones finish. */
  resize(max: number): void {
    this.max = max;
    this.#next();
  }

  get active(): number {
    return this.#active;
  }

  get waiting(): number {
    return this.#queue.size;
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
    while (this.#active < this.max && this.#queue.size > 0) {
      // Counted over calls, not per call: every task's completion and every run() calls this.
      if (this.#startedInTurn === STARTS_PER_TURN) return; // the turn's end starts more
      if (this.#startedInTurn === 0) this.#endTurnLater();
      this.#startedInTurn += 1;
      this.#queue.shift()!();
    }
  }

  #endTurnLater(): void {
    if (this.#turnEnding) return;
    this.#turnEnding = true;
    setImmediate(() => {
      this.#turnEnding = false;
      this.#startedInTurn = 0;
      this.#next();
    });
  }
}
