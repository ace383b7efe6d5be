import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { HttpError, SSRF_REFUSED, TIMEOUT_CODES, messageOf, type HttpMethod } from '../../core/plugin-api.js';
import type { Exchange } from './exchange.js';
import type { HeaderMap } from './headers.js';
import { ResponseRelay, type Respond } from './relay.js';
import type { Target } from './target-url.js';

export interface UpstreamCall {
  readonly target: Target;
  readonly method: HttpMethod;
  readonly headers: HeaderMap;
  /** The client's request (streamed) or a buffered copy; null when no body is forwarded. */
  readonly body: Readable | Buffer | null;
  readonly exchange: Exchange;
  /** Time allowed until the response headers arrive. */
  readonly timeoutMs: number;
  /** Longest silence between body chunks; 0 for none. */
  readonly bodyIdleMs: number;
}

/** undici's options for one call; the path goes out byte for byte as checked, without re-normalising. */
function dispatchOptions(call: UpstreamCall): Dispatcher.DispatchOptions {
  return {
    origin: call.target.origin,
    path: call.target.path,
    method: call.method,
    headers: call.headers,
    body: call.body,
    headersTimeout: call.timeoutMs,
    bodyTimeout: call.bodyIdleMs,
  };
}

/**
 * Sends one request to an instance and resolves once its status and headers are in; the body is
 * left to the caller to collect. `timeoutMs` covers connecting, sending and waiting for the
 * headers; from then on only `bodyIdleMs` applies. Failures become HttpErrors with the proxy's
 * codes (504 timeout, 502 connection failure, 403 SSRF refusal); when the exchange was aborted
 * for the client or a shutdown, the error says so.
 */
export async function callUpstream(dispatcher: Dispatcher, call: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const clearDeadline = call.exchange.deadline(call.timeoutMs);
  try {
    return await dispatcher.request({ ...dispatchOptions(call), signal: call.exchange.signal });
  } catch (error) {
    throw upstreamFailure(error, call);
  } finally {
    clearDeadline();
  }
}

/**
 * Streams one call straight into the client's response (see ResponseRelay): `respond` writes the
 * status and headers when they arrive, the body follows chunk by chunk. Timeouts as in
 * `callUpstream`. A failure before the headers rejects with the proxy's HttpError (nothing was
 * written); after the headers the client's connection is destroyed, so a cut body never looks
 * complete, and the promise rejects with `BodyCutError`.
 */
export function streamUpstream(dispatcher: Dispatcher, call: UpstreamCall, respond: Respond): Promise<void> {
  return new Promise((resolve, reject) => {
    const clearDeadline = call.exchange.deadline(call.timeoutMs);
    const relay = new ResponseRelay((statusCode, headers) => {
      clearDeadline();
      return respond(statusCode, headers);
    }, (error, started) => {
      clearDeadline();
      if (!error) resolve();
      else reject(started ? new BodyCutError(error) : upstreamFailure(error, call));
    });
    call.exchange.onAbort((reason) => relay.cancel(reason));
    dispatcher.dispatch(dispatchOptions(call), relay);
  });
}

/** The body broke off after the headers went out; the client's connection is already destroyed. */
export class BodyCutError extends Error {
  constructor(readonly reason: unknown) {
    super(`body ended early: ${messageOf(reason)}`);
    this.name = 'BodyCutError';
  }
}

/** The status the proxy answers for a failed call, with a message that names the target. */
export function upstreamFailure(error: unknown, call: Pick<UpstreamCall, 'target' | 'exchange' | 'timeoutMs'>): Error {
  const where = `${call.target.endpointId} at ${call.target.origin}`;
  const cause = call.exchange.cause;
  if (cause === 'timeout') return new HttpError(504, `${where} did not answer within ${call.timeoutMs} ms`);
  if (cause) return new ClientGoneError(cause);
  const code = codeOf(error);
  if (TIMEOUT_CODES.has(code)) return new HttpError(504, `${where} timed out (${code})`);
  if (code === SSRF_REFUSED) return new HttpError(403, (error as Error).message);
  return new HttpError(502, `${where} could not be reached: ${code || messageOf(error)}`);
}

/** The exchange ended because nobody waits for the answer any more: no response is written. */
export class ClientGoneError extends Error {
  constructor(readonly reason: string) {
    super(`proxy call aborted: ${reason}`);
    this.name = 'ClientGoneError';
  }
}

function codeOf(error: unknown): string {
  if (typeof error !== 'object' || error === null) return '';
  const { code, cause } = error as { code?: unknown; cause?: unknown };
  if (typeof code === 'string') return code;
  return cause ? codeOf(cause) : '';
}
