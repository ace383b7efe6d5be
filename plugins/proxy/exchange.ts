import { EventEmitter } from 'node:events';
import { InFlight } from '../../core/kits/runtime/index.js';

/** Why an exchange with an instance was cut short. */
export type AbortCause = 'client-gone' | 'shutdown' | 'timeout';

/**
 * The abort signal handed to `dispatcher.request` (the fan-out). undici accepts an EventEmitter
 * with `aborted` and `reason` as well as an AbortSignal, and this one is much cheaper to make
 * than an AbortController with its EventTarget listeners and the DOMException it builds.
 */
export class CallSignal extends EventEmitter {
  aborted = false;
  reason: Error | undefined;

  abort(reason: Error): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.emit('abort');
  }
}

/**
 * One call to an instance, remembering why it was cut short: the client left, the kernel is
 * stopping, or the proxy's timeout ran out. The cause decides the answer (504 for a timeout;
 * nothing at all when nobody is listening any more).
 *
 * Exchanges form a tree: the plugin's root follows the kernel's shutdown signal, each request is
 * a child, each instance of a fan-out a grandchild. Aborting a node aborts its subtree. A tree
 * rather than one listener per request on the shared signal: hundreds of concurrent downloads
 * would otherwise pile up listeners on one AbortSignal (and Node's leak warning). The children
 * are an InFlight list, not a Set: see there why a Set would age every request into the old
 * generation.
 */
export class Exchange {
  #signal: CallSignal | undefined;
  #reason: Error | undefined;
  #listeners: ((reason: Error) => void)[] | undefined;
  // Both made on first use: most exchanges have no child and one short-lived timer.
  #children: InFlight<Exchange> | undefined;
  #timers: NodeJS.Timeout[] | undefined;
  /** Takes this exchange out of its parent's children. */
  #detach: (() => void) | undefined;
  #cause: AbortCause | undefined;

  get cause(): AbortCause | undefined {
    return this.#cause;
  }

  /** A signal for undici's `request`, made on first use (the streaming path needs none). */
  get signal(): CallSignal {
    if (!this.#signal) {
      const signal = new CallSignal();
      this.onAbort((reason) => signal.abort(reason));
      this.#signal = signal;
    }
    return this.#signal;
  }

  /** Calls `listener` once when this exchange aborts; at once if it already has. */
  onAbort(listener: (reason: Error) => void): void {
    if (this.#reason) listener(this.#reason);
    else (this.#listeners ??= []).push(listener);
  }

  abort(cause: AbortCause): void {
    if (this.#cause) return;
    this.#cause = cause;
    const reason = new Error(`proxy call aborted: ${cause}`);
    this.#reason = reason;
    if (this.#listeners) for (const listener of this.#listeners.splice(0)) listener(reason);
    if (this.#children) for (const child of this.#children.snapshot()) child.abort(cause);
  }

  /** A new exchange aborted with this one (at once, if this one already is). */
  child(): Exchange {
    const child = new Exchange();
    if (this.#cause) child.abort(this.#cause);
    else child.#detach = (this.#children ??= new InFlight()).add(child);
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
    (this.#timers ??= []).push(timer);
    return () => clearTimeout(timer);
  }

  /** Detaches from the parent and clears the timers; the signal stays as it is. */
  dispose(): void {
    if (this.#timers) for (const timer of this.#timers.splice(0)) clearTimeout(timer);
    this.#detach?.();
    this.#detach = undefined;
  }
}
