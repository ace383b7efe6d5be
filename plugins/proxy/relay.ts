import type { IncomingHttpHeaders } from 'node:http';
import type { Writable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { CancellableHandler } from '../../core/kits/runtime/index.js';

function uncork(out: Writable): void {
  out.uncork();
}

/** Writes the instance's status and headers to the client and returns where its body goes. */
export type Respond = (statusCode: number, headers: IncomingHttpHeaders) => Writable;

/** How a relayed call ended: `error` is undefined on success; `started` says whether headers went out. */
export type Settle = (error: Error | undefined, started: boolean) => void;

/**
 * An undici dispatch handler that relays one response straight into the client's response: each
 * chunk is written as undici parses it, and when the client cannot keep up undici is paused until
 * the response drains, so memory stays at one chunk per call however large the body.
 *
 * Written against the dispatch API rather than `request` + `pipeline` or `stream`: those add a
 * Readable or an AsyncResource, an AbortController and `finished()` listeners per call, which
 * for a few-KB actuator answer cost more than the relaying itself.
 */
export class ResponseRelay extends CancellableHandler {
  #out: Writable | undefined;
  #settled = false;

  constructor(private readonly respond: Respond, private readonly settle: Settle) {
    super();
  }

  onResponseStart(_controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the final status is still to come
    const out = this.respond(statusCode, headers);
    this.#out = out;
    // undici parses a whole socket read in one go, so a small answer's headers, body and end all
    // arrive within this tick: corked until the next one, they leave in one write instead of two
    // or three. Nothing waits for later data, so a slow body never holds the headers back.
    out.cork();
    process.nextTick(uncork, out);
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    const out = this.#out!;
    if (!out.write(chunk)) {
      controller.pause();
      out.once('drain', () => controller.resume());
    }
  }

  onResponseEnd(): void {
    this.#out?.end();
    this.#finish(undefined);
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    // After the headers the only honest signal left is a broken connection: a cut body must not look complete.
    this.#out?.destroy();
    this.#finish(error);
  }

  #finish(error: Error | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.settle(error, this.#out !== undefined);
  }
}
