/**
 * Every error code Vigil raises, in one place (as fastify keeps its codes). Codes are stable:
 * tests and users match on them, messages may improve. Kernel and contract errors are `ERR_`
 * and upper-case words; a failed call to an instance has an errno-style code (below).
 */
export const ERROR_CODES = {
  ERR_CONFIG_INVALID: 'the configuration has problems',
  ERR_PLUGIN_NOT_FOUND: 'a plugin could not be found',
  ERR_PLUGIN_BROKEN: 'a plugin was found but could not be loaded',
  ERR_PLUGIN_INVALID: 'a plugin object does not fulfil the plugin contract',
  ERR_PLUGIN_DEPENDENCY: 'a plugin dependency is missing or circular',
  ERR_PLUGIN_FAILED: 'a plugin failed during setup, start or stop',
  ERR_PLUGIN_TIMEOUT: 'a plugin lifecycle step took too long',
  ERR_VERSION_CONFLICT: 'an event lost an optimistic-locking race',
  ERR_STALE_FENCE: 'a singleton job\'s write came under a lease another node holds now',
  ERR_STORE_UNAVAILABLE: 'the event log cannot take writes now',
  ERR_SSRF_REFUSED: 'ssrf-protection refused a call from Vigil',
  ERR_SERVICE_DUPLICATE: 'a service token was provided twice',
  ERR_SERVICE_MISSING: 'a service token was used but never provided',
  ERR_PHASE: 'an operation was called in the wrong kernel phase',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** The code of every SSRF refusal, so callers can tell it from a failed connection (the proxy answers 403). */
export const SSRF_REFUSED = 'ERR_SSRF_REFUSED' satisfies ErrorCode;

export class VigilError extends Error {
  constructor(readonly code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VigilError';
  }
}

/** A list of problems found together, e.g. every config error, reported one line each. */
export class ProblemsError extends VigilError {
  constructor(code: ErrorCode, readonly problems: readonly string[]) {
    super(code, problems.join('\n'));
  }
}

/**
 * Why a call to an instance failed without an HTTP answer. Errno-style, beside the socket's own
 * codes that pass through as they are (`ECONNREFUSED`, `ENOTFOUND`): an OFFLINE instance shows
 * the code as its `exception`, so these are as stable as the `ERR_` codes.
 */
export const CALL_FAILURE = {
  /** No answer in time (undici's own time-outs are reported as this too). */
  TIMED_OUT: 'ETIMEDOUT',
  /** The answer was larger than the caller accepts. */
  BODY_TOO_LARGE: 'EBODYTOOLARGE',
  /** Vigil gave up on the call itself (shutdown, deregistration): no verdict on the instance. */
  ABORTED: 'EABORTED',
  /** A check's retries ran past its cut-off: the last attempt's failure stands. */
  CUT_OFF: 'ECUTOFF',
  /** Anything else without a code of its own. */
  FAILED: 'ECALLFAILED',
} as const;

/** undici's time-out codes, which mean to a caller what `ETIMEDOUT` means: the instance did not answer in time. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', CALL_FAILURE.TIMED_OUT]);

export { messageOf } from './domain/message-of.js';
