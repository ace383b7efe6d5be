/** Why an exchange with an instance was cut short. */
export type AbortCause = 'client-gone' | 'shutdown' | 'timeout';

/**
 * One abort signal for one call to an instance, remembering why it fired: the client left,
 * the kernel is stopping, or the proxy's timeout ran out. The cause decides the answer (504 for
 * a timeout; nothing at all when nobody is listening any more).
 */
export class Exchange {
  readonly #controller = new AbortController();
  readonly #cleanups: (() => void)[] = [];
  #cause: AbortCause | undefined;

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  get cause(): AbortCause | undefined {
    return this.#cause;
  }

  abort(cause: AbortCause): void {
    if (this.#cause) return;
    this.#cause = cause;
    this.#controller.abort(new Error(`proxy call aborted: ${cause}`));
  }

  /** Aborts with `cause` when `signal` aborts (shutdown, or a parent exchange). */
  follow(signal: AbortSignal, cause: AbortCause): this {
    const onAbort = () => this.abort(cause);
    if (signal.aborted) onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    this.#cleanups.push(() => signal.removeEventListener('abort', onAbort));
    return this;
  }

  /** Aborts with `timeout` after `ms`, unless `dispose` or the returned function runs first. */
  deadline(ms: number): () => void {
    const timer = setTimeout(() => this.abort('timeout'), ms);
    const clear = () => clearTimeout(timer);
    this.#cleanups.push(clear);
    return clear;
  }

  /** Removes every listener and timer; the signal stays as it is. */
  dispose(): void {
    for (const cleanup of this.#cleanups.splice(0)) cleanup();
  }
}
