import type { AuditActor, AuditEntry } from '../../core/domain/index.js';

export type { AuditActor, AuditEntry } from '../../core/domain/index.js';

/** An entry before the trail numbered it. */
export type AuditRecord = Omit<AuditEntry, 'id'>;

/** The actions of entries that are not requests to a route. */
export const SIGN_IN = 'auth.sign-in';
export const SIGN_OUT = 'auth.sign-out';
export const SIGN_IN_FAILED = 'auth.sign-in-failed';
export const CONFIG_RELOAD = 'config.reload';

export const SYSTEM: AuditActor = Object.freeze({ name: 'system', kind: 'system', via: null });
export const NOBODY: AuditActor = Object.freeze({ name: 'anonymous', kind: 'anonymous', via: null });
