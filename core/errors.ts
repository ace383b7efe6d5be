/**
 * Every error code the kernel raises, in one place (as fastify keeps its codes). Codes are stable:
 * tests and users match on them, messages may improve.
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
  ERR_SERVICE_DUPLICATE: 'a service token was provided twice',
  ERR_SERVICE_MISSING: 'a service token was used but never provided',
  ERR_PHASE: 'an operation was called in the wrong kernel phase',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

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

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
