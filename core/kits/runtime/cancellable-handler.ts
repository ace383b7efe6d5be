import type { Dispatcher } from 'undici';

/**
 * The base of an undici dispatch handler whose owner may stop the call at any moment: before
 * undici has started it (the call is refused as soon as it starts), on the wire, or between a
 * retry's connections (undici calls `onRequestStart` again; the newest controller is the live
 * one). Subclasses implement the response callbacks.
 */
export abstract class CancellableHandler implements Dispatcher.DispatchHandler {
  #controller: Dispatcher.DispatchController | undefined;
  #cancelled: Error | undefined;

  /** Stops the call: at once if it is on the wire, else as soon as undici starts it. */
  cancel(reason: Error): void {
    if (this.#controller) this.#controller.abort(reason);
    else this.#cancelled = reason;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    if (this.#cancelled) controller.abort(this.#cancelled);
    else this.#controller = controller;
  }
}
