import { CALL_FAILURE, TIMEOUT_CODES } from '../../core/plugin-api.js';

/**
 * Why a call to an instance failed without an HTTP answer. The `code` is what callers branch
 * on (and what OFFLINE details show as `exception`); the message is for people.
 */
export type CallErrorCode = (typeof CALL_FAILURE)[keyof typeof CALL_FAILURE] | string;

export class InstanceCallError extends Error {
  constructor(readonly code: CallErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'InstanceCallError';
  }
}

/** Normalises whatever undici or the socket threw into an InstanceCallError with a code. */
export function toCallError(error: unknown): InstanceCallError {
  if (error instanceof InstanceCallError) return error;
  const err = error as { code?: unknown; message?: unknown; errors?: readonly { message?: unknown; code?: unknown }[] };
  // Connecting to a host with several addresses fails with an AggregateError whose message is empty.
  const inner = Array.isArray(err?.errors) ? err.errors[0] : undefined;
  const rawCode = typeof err?.code === 'string' ? err.code : typeof inner?.code === 'string' ? inner.code : CALL_FAILURE.FAILED;
  const code = TIMEOUT_CODES.has(rawCode) ? CALL_FAILURE.TIMED_OUT : rawCode;
  const message = (typeof err?.message === 'string' && err.message) || (typeof inner?.message === 'string' && inner.message) || code;
  return new InstanceCallError(code, message, { cause: error });
}

/** Whether a call ended because Vigil itself gave up on it (shutdown, deregistration): no verdict on the instance. */
export function isAbort(error: unknown): boolean {
  return error instanceof InstanceCallError && error.code === CALL_FAILURE.ABORTED;
}
