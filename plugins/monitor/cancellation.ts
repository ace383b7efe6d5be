/** What a piece of work is handed to learn that it should stop; it cannot stop anything itself. */
export interface CancelToken {
  readonly cancelled: boolean;
  /**
   * Calls `listener` once when cancelled, or at once when already cancelled. The returned
   * function unsubscribes it (a second call does nothing).
   */
  onCancel(listener: () => void): () => void;
}

type Listener = () => void;

const NOTHING_TO_UNSUBSCRIBE = (): void => undefined;

/**
 * The monitor's own cancellation for its checks and calls, in place of AbortController: an
 * AbortSignal is an EventTarget, whose making and listening cost far more than the thousands of
 * checks a second need. Plain listeners in an array, taken out for real on unsubscribe, so
 * nothing finished stays reachable from a token that lives on. AbortSignals remain at the
 * contract's boundary (`INSTANCE_HTTP`, detection strategies), adapted there.
 */
export class Cancellation implements CancelToken {
  #cancelled = false;
  /** Made on the first subscription; a slot is emptied rather than spliced while `cancel` runs. */
  #listeners: (Listener | undefined)[] | undefined;

  get cancelled(): boolean {
    return this.#cancelled;
  }

  /** Listeners subscribed now (for tests: none must be left behind by a finished call). */
  get listenerCount(): number {
    let count = 0;
    for (const listener of this.#listeners ?? []) if (listener) count += 1;
    return count;
  }

  /**
   * Cancels, once: each listener subscribed is called once, in the order subscribed; one
   * unsubscribed by an earlier one is not called. A listener that throws does not keep the
   * others from running; the first error is thrown once all have run.
   */
  cancel(): void {
    if (this.#cancelled) return;
    this.#cancelled = true;
    const listeners = this.#listeners;
    if (!listeners) return;
    let failed = false;
    let failure: unknown;
    for (let i = 0; i < listeners.length; i++) {
      const listener = listeners[i];
      if (!listener) continue;
      listeners[i] = undefined;
      try {
        listener();
      } catch (error) {
        if (!failed) failure = error;
        failed = true;
      }
    }
    this.#listeners = undefined;
    if (failed) throw failure;
  }

  onCancel(listener: Listener): () => void {
    if (this.#cancelled) {
      listener();
      return NOTHING_TO_UNSUBSCRIBE;
    }
    const listeners = (this.#listeners ??= []);
    listeners.push(listener);
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.#unsubscribe(listener);
    };
  }

  #unsubscribe(listener: Listener): void {
    const listeners = this.#listeners;
    if (!listeners) return;
    const at = listeners.indexOf(listener);
    if (at < 0) return;
    if (this.#cancelled) listeners[at] = undefined;
    else listeners.splice(at, 1);
  }
}
