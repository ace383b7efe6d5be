import { defineToken } from './tokens.js';

/**
 * Whether this node may take traffic, as `GET /health/readiness` reports it: ready only while
 * every contributed check is. The kernel contributes one for its phase (not ready while starting
 * or stopping); a plugin whose outage makes the node useless contributes its own at the setup step
 * (`cluster-redis`: not ready while Redis cannot be reached).
 */
export interface ReadinessCheck {
  /** Short kebab-case name shown in the answer (`kernel`, `redis`). */
  readonly name: string;
  /**
   * The state now. Called on every probe (orchestrators ask every few seconds): synchronous and
   * cheap, from state the plugin keeps, never a network call. A `reason` is shown to whoever may
   * read the probe (possibly anonymous, see `basic-auth.anonymous-probes`): no secrets, no URLs
   * with credentials.
   */
  check(): Readiness;
}

export type Readiness = { readonly ready: true } | { readonly ready: false; readonly reason: string };

export const READINESS = defineToken<ReadinessCheck>('vigil.readiness');

/**
 * The probe paths (below the context path), fixed by the contract: the plugin that serves them
 * and `basic-auth` (which can let orchestrators read them without credentials) both use these.
 */
export const LIVENESS_PATH = '/health/liveness';
export const READINESS_PATH = '/health/readiness';
