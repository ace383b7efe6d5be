/**
 * The contract's leaf: the small types every other part of it names (a logger, an HTTP method,
 * the typed services). It imports nothing but the token type, so any contract file can use it
 * without an import circle.
 */
import type { ServiceToken } from './tokens.js';

export interface Logger {
  error(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  debug(message: string, meta?: Record<string, unknown>): void;
  /** A logger whose lines also carry `scope`. */
  child(scope: string): Logger;
}

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/**
 * Tokens plugins contribute to (at the setup step, in `create`) for the kernel: `READINESS` (`GET
 * /health/readiness`, the kernel adds its phase) and `ALLOWED_HOSTS` (the kernel's `Host` check);
 * those plugins offer each other (`METRICS`, `API_DESCRIPTION`, `DETECTION_STRATEGY`, ...) are in
 * `vigil/services`.
 *
 * Tokens the kernel reads or fills itself: `EVENT_LOG`, `OWNERSHIP`, `LEASES`, `SHARED_STATE`,
 * `EVENT_OUTBOX` and `NODE_ID`. A plugin (`cluster-redis`) may provide them at its setup step; once
 * every plugin has set up, the kernel provides one process's own for each one left, so from
 * `start` on `use()` always finds them.
 */
export interface Services {
  /** Provides the one implementation of a token; a second provider is an error. */
  provide<T>(token: ServiceToken<T>, value: T): void;
  /** The provided implementation, or undefined when no loaded plugin provides it. */
  use<T>(token: ServiceToken<T>): T | undefined;
  /** Adds one of many values for a token (e.g. a detection strategy). */
  contribute<T>(token: ServiceToken<T>, value: T): void;
  /** Every contributed value, in the order the contributing plugins appear in `plugins:`. */
  collect<T>(token: ServiceToken<T>): T[];
}
