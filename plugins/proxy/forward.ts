import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { HttpError, type HttpMethod } from '../../core/plugin-api.js';
import type { Exchange } from './exchange.js';
import type { HeaderMap } from './headers.js';
import { SSRF_REFUSED } from './ssrf.js';
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

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/**
 * Sends one request to an instance and resolves once its status and headers are in; the body is
 * left to the caller to stream or collect. `timeoutMs` covers connecting, sending and waiting for
 * the headers; from then on only `bodyIdleMs` applies, so a long download is never cut while it
 * moves. Failures become HttpErrors with the proxy's codes (504 timeout, 502 connection failure,
 * 403 SSRF refusal); when the exchange was aborted for the client or a shutdown, the error says so.
 */
export async function callUpstream(dispatcher: Dispatcher, call: UpstreamCall): Promise<Dispatcher.ResponseData> {
  const { target, exchange } = call;
  const clearDeadline = exchange.deadline(call.timeoutMs);
  try {
    return await dispatcher.request({
      origin: target.origin,
      // The checked path, as built: undici sends it byte for byte, without re-normalising.
      path: target.path,
      method: call.method,
      headers: call.headers,
      body: call.body,
      signal: exchange.signal,
      headersTimeout: call.timeoutMs,
      bodyTimeout: call.bodyIdleMs,
    });
  } catch (error) {
    throw upstreamFailure(error, call);
  } finally {
    clearDeadline();
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

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
