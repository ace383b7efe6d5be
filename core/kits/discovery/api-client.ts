import { request, type Dispatcher } from 'undici';
import { StreamTooLargeError, collectStream } from '../../plugin-api.js';
import { maskUrlPassword } from '../../domain/index.js';

/** The registry's API answered, but not with a 2xx: the run fails with this. */
export class ApiError extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface GetOptions {
  readonly headers?: Readonly<Record<string, string>>;
  readonly signal: AbortSignal;
  /** An agent with the API's CA, say; undici's global one otherwise. */
  readonly dispatcher?: Dispatcher;
  /** Largest body read, in bytes (default 64 MiB: a big Eureka or Kubernetes answer fits). */
  readonly limit?: number;
  /** Longest wait for the answer's headers (ms); 0 for none, as a blocking query needs. Default 30 s. */
  readonly headersTimeout?: number;
}

export interface JsonAnswer {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly json: unknown;
}

const DEFAULT_LIMIT = 64 * 2 ** 20;

/**
 * GET a JSON document from a registry's API (Consul, Eureka, Kubernetes): the one client the
 * discovery sources share, so each reports failures the same way. Any non-2xx status, a body
 * that is not JSON or is too large, and a network error reject with a message that names the
 * URL (its password masked) and never the request's headers, which may carry a token.
 */
export async function getJson(url: string, options: GetOptions): Promise<JsonAnswer> {
  const shown = `GET ${maskUrlPassword(url)}`;
  let response: Dispatcher.ResponseData;
  try {
    response = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', ...options.headers },
      signal: options.signal,
      ...(options.dispatcher ? { dispatcher: options.dispatcher } : {}),
      headersTimeout: options.headersTimeout ?? 30_000,
      bodyTimeout: options.headersTimeout === 0 ? 0 : 30_000,
    });
  } catch (error) {
    throw new Error(`${shown}: ${networkMessage(error)}`);
  }
  let body: Buffer;
  try {
    body = await collectStream(response.body, options.limit ?? DEFAULT_LIMIT);
  } catch (error) {
    response.body.destroy();
    throw new Error(`${shown}: ${error instanceof StreamTooLargeError ? error.message : networkMessage(error)}`);
  }
  const text = body.toString('utf8');
  if (response.statusCode < 200 || response.statusCode > 299) {
    throw new ApiError(response.statusCode, `${shown}: HTTP ${response.statusCode}${excerpt(text)}`);
  }
  try {
    return { status: response.statusCode, headers: response.headers, json: JSON.parse(text) as unknown };
  } catch {
    throw new Error(`${shown}: the answer is not JSON (content-type ${String(response.headers['content-type'] ?? 'none')})${excerpt(text)}`);
  }
}

function networkMessage(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as NodeJS.ErrnoException).code ?? (error.cause as NodeJS.ErrnoException | undefined)?.code;
  return code && !error.message.includes(code) ? `${error.message} (${code})` : error.message;
}

/** The start of an error body: what the API said, on one line. */
function excerpt(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim().slice(0, 200);
  return line ? `: ${line}` : '';
}
