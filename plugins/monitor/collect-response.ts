import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { CancellableHandler } from '../../core/kits/runtime/index.js';
import { CALL_FAILURE } from '../../core/plugin-api.js';
import { type InstanceResponse } from '../../core/kits/services/index.js';
import { InstanceCallError } from './call-error.js';

/**
 * An undici dispatch handler that collects one answer of an instance (health, info, an actuator
 * index) whole, up to `max` bytes: a longer one (declared or sent) aborts the call, which drops
 * the connection instead of buffering. Written against the dispatch API rather than `request()`,
 * as the proxy's relay is: `request()` adds a Readable body, an AsyncResource and an abort
 * listener per call, which for a 15-byte health answer cost more than the answer itself.
 */
export class CollectingHandler extends CancellableHandler {
  #status = 0;
  #headers: Record<string, string> = {};
  readonly #chunks: Buffer[] = [];
  #size = 0;
  #settled = false;

  constructor(
    private readonly max: number,
    private readonly resolve: (response: InstanceResponse) => void,
    private readonly reject: (error: Error) => void,
  ) {
    super();
  }

  onResponseStart(controller: Dispatcher.DispatchController, statusCode: number, headers: IncomingHttpHeaders): void {
    if (statusCode < 200) return; // 1xx: the final status is still to come
    this.#status = statusCode;
    this.#headers = flattenHeaders(headers);
    const declared = this.#headers['content-length'];
    if (declared !== undefined && Number(declared) > this.max) controller.abort(tooLarge(this.max));
  }

  onResponseData(controller: Dispatcher.DispatchController, chunk: Buffer): void {
    this.#size += chunk.length;
    if (this.#size > this.max) {
      controller.abort(tooLarge(this.max));
      return;
    }
    this.#chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (this.#settled) return;
    this.#settled = true;
    // Always a copy: a chunk is a view of the socket's whole read buffer, which must not be pinned.
    const body = Buffer.concat(this.#chunks, this.#size);
    this.resolve({ status: this.#status, headers: this.#headers, contentType: this.#headers['content-type'] ?? '', body });
  }

  onResponseError(_controller: Dispatcher.DispatchController | undefined, error: Error): void {
    if (this.#settled) return;
    this.#settled = true;
    this.reject(error);
  }
}

function tooLarge(max: number): InstanceCallError {
  return new InstanceCallError(CALL_FAILURE.BODY_TOO_LARGE, `the response body exceeds ${max} bytes`);
}

/** Lower-case names, repeated headers joined as one value. */
function flattenHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
