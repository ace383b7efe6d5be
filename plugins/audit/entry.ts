/** Who did it: the principal of the request, or `system` for what the daemon did itself (a reload). */
export interface AuditActor {
  readonly name: string;
  readonly kind: 'user' | 'token' | 'anonymous' | 'system';
  readonly via: 'basic' | 'token' | 'oidc' | null;
}

/**
 * One entry of the audit trail. `id` grows with every entry (across the cluster with
 * `cluster-redis`): a stream's `Last-Event-ID`. Fields that do not apply are null.
 */
export interface AuditEntry {
  readonly id: number;
  readonly timestamp: string;
  readonly actor: AuditActor;
  readonly address: string | null;
  /** The action the kernel's access check decided (`actuator.write`), or `auth.*`, `config.reload`. */
  readonly action: string;
  readonly method: string | null;
  readonly path: string | null;
  readonly instance: string | null;
  readonly application: string | null;
  readonly status: number | null;
  readonly durationMs: number | null;
  /** The JSON body of a proxied actuator write (≤ 1 KiB, secrets masked), or what a sign-in failure or reload was. */
  readonly detail: unknown;
}

/** An entry before the trail numbered it. */
export type AuditRecord = Omit<AuditEntry, 'id'>;

/** The actions of entries that are not requests to a route. */
export const SIGN_IN = 'auth.sign-in';
export const SIGN_OUT = 'auth.sign-out';
export const SIGN_IN_FAILED = 'auth.sign-in-failed';
export const CONFIG_RELOAD = 'config.reload';

export const SYSTEM: AuditActor = Object.freeze({ name: 'system', kind: 'system', via: null });
export const NOBODY: AuditActor = Object.freeze({ name: 'anonymous', kind: 'anonymous', via: null });
