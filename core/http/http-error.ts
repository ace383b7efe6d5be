import { STATUS_CODES } from 'node:http';

/** An error that becomes an HTTP response with the contract's JSON error body. */
export class HttpError extends Error {
  constructor(readonly status: number, message: string, readonly headers: Record<string, string> = {}) {
    super(message);
    this.name = 'HttpError';
  }
}

/** The contract's error body (CONTRACT §4): `{timestamp, status, error, message, path}`. */
export function errorBody(status: number, message: string, path: string) {
  return { timestamp: new Date().toISOString(), status, error: STATUS_CODES[status] ?? 'Error', message, path };
}
