/**
 * Why a call to an instance failed without an HTTP answer. The `code` is what callers branch
 * on (and what OFFLINE details show as `exception`); the message is for people.
 */
export type CallErrorCode = 'ETIMEDOUT' | 'EBODYTOOLARGE' | 'EABORTED' | string;

export class InstanceCallError extends Error {
  constructor(readonly code: CallErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InstanceCallError';
  }
}

// undici's own timeouts mean the same as ours to a caller: the instance did not answer in time.
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ETIMEDOUT']);

/** Normalises whatever undici or the socket threw into an InstanceCallError with a code. */
export function toCallError(error: unknown): InstanceCallError {
  if (error instanceof InstanceCallError) return error;
  const err = error as { code?: unknown; message?: unknown; errors?: readonly { message?: unknown; code?: unknown }[] };
  // Connecting to a host with several addresses fails with an AggregateError whose message is empty.
  const inner = Array.isArray(err?.errors) ? err.errors[0] : undefined;
  const rawCode = typeof err?.code === 'string' ? err.code : typeof inner?.code === 'string' ? inner.code : 'ECALLFAILED';
  const code = TIMEOUT_CODES.has(rawCode) ? 'ETIMEDOUT' : rawCode;
  const message = (typeof err?.message === 'string' && err.message) || (typeof inner?.message === 'string' && inner.message) || code;
  return new InstanceCallError(code, message, { cause: error });
}

/** Whether a call ended because Vigil itself gave up on it (shutdown, deregistration): no verdict on the instance. */
export function isAbort(error: unknown): boolean {
  return error instanceof InstanceCallError && error.code === 'EABORTED';
}
