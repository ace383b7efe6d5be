import { Fifo } from '../../core/plugin-api.js';

/** Tasks started in one turn of the event loop, at most: then the loop gets to serve requests again. */
export const STARTS_PER_TURN = 4;

/** A line tasks wait in for a slot: a `ConcurrencyLimiter`, or one whose cap moves. */
export interface TaskLine {
  /** Runs `task` when a slot is free, never inside the caller's stack. */
  run<T>(task: () => Promise<T>): Promise<T>;
  /**
   * Starts `start` when a slot is free, never inside the caller's stack, and keeps the slot until
   * the promise it returns settles. While it waits, nothing but its place in line is held: no
   * promise, no callbacks (a burst of registrations puts tens of thousands of checks in line).
   */
  submit(start: () => Promise<unknown>): void;
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
  readonly #queue = new Fifo<() => Promise<unknown>>();
  #active = 0;
  /** Tasks started in this turn of the event loop. */
  #startedInTurn = 0;
  /** The end of this turn is asked for (setImmediate, after the pass over I/O): the count starts again there. */
  #turnEnding = false;
  /** A microtask will start what waits: one for all the tasks submitted in one go. */
  #poked = false;
  readonly #finished = () => {
    this.#active -= 1;
    this.#next();
  };
  /** Starts a task whose slot is counted; a task that throws synchronously frees it too. */
  readonly #start = (start: () => Promise<unknown>) => {
    let started: Promise<unknown>;
    try {
      started = start();
    } catch {
      this.#finished();
      return;
    }
    started.then(this.#finished, this.#finished);
  };
  readonly #poke = () => {
    this.#poked = false;
    this.#next();
  };

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
    return new Promise<T>((resolve, reject) => this.submit(() => {
      let result: Promise<T>;
      try {
        result = task();
      } catch (error) {
        result = Promise.reject(error);
      }
      return result.then(resolve, reject);
    }));
  }

  submit(start: () => Promise<unknown>): void {
    this.#queue.push(start);
    // A microtask, so a bus handler that triggers a check returns before the check begins.
    if (this.#poked) return;
    this.#poked = true;
    queueMicrotask(this.#poke);
  }

  #next(): void {
    while (this.#active < this.max && this.#queue.size > 0) {
      // Counted over calls, not per call: every task's completion and every submit calls this.
      if (this.#startedInTurn === STARTS_PER_TURN) return; // the turn's end starts more
      if (this.#startedInTurn === 0) this.#endTurnLater();
      this.#startedInTurn += 1;
      this.#active += 1;
      // In a microtask, never inside the caller's stack.
      void Promise.resolve(this.#queue.shift()!).then(this.#start);
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
