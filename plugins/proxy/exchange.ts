/** Why an exchange with an instance was cut short. */
export type AbortCause = 'client-gone' | 'shutdown' | 'timeout';

/**
 * One abort signal for one call to an instance, remembering why it fired: the client left, the
 * kernel is stopping, or the proxy's timeout ran out. The cause decides the answer (504 for a
 * timeout; nothing at all when nobody is listening any more).
 *
 * Exchanges form a tree: the plugin's root follows the kernel's shutdown signal, each request is
 * a child, each instance of a fan-out a grandchild. Aborting a node aborts its subtree. A tree
 * rather than one listener per request on the shared signal: hundreds of concurrent downloads
 * would otherwise pile up listeners on one AbortSignal (and Node's leak warning).
 */
export class Exchange {
  readonly #controller = new AbortController();
  readonly #children = new Set<Exchange>();
  readonly #timers: NodeJS.Timeout[] = [];
  #parent: Exchange | undefined;
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
    for (const child of this.#children) child.abort(cause);
  }

  /** A new exchange aborted with this one (at once, if this one already is). */
  child(): Exchange {
    const child = new Exchange();
    child.#parent = this;
    if (this.#cause) child.abort(this.#cause);
    else this.#children.add(child);
    return child;
  }

  /** Aborts with `cause` when `signal` aborts; for the root, following the kernel's shutdown. */
  follow(signal: AbortSignal, cause: AbortCause): this {
    if (signal.aborted) this.abort(cause);
    else signal.addEventListener('abort', () => this.abort(cause), { once: true });
    return this;
  }

  /** Aborts with `timeout` after `ms`, unless the returned function or `dispose` runs first. */
  deadline(ms: number): () => void {
    const timer = setTimeout(() => this.abort('timeout'), ms);
    this.#timers.push(timer);
    return () => clearTimeout(timer);
  }

  /** Detaches from the parent and clears the timers; the signal stays as it is. */
  dispose(): void {
    for (const timer of this.#timers.splice(0)) clearTimeout(timer);
    if (this.#parent) this.#parent.#children.delete(this);
    this.#parent = undefined;
  }
}
