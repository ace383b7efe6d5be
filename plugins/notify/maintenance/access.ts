import type { ApplicationScope } from '../../../core/plugin-api.js';

/** The part of a window an access rule looks at. */
export interface WindowScope {
  readonly applications: readonly string[];
  readonly instances: readonly string[];
}

/**
 * Whether a caller whose `maintenance.manage` grants cover `scope` may make or delete `window`:
 * the one place the maintenance routes ask. An admin, or a caller without restriction, may
 * always; an operator only when every application pattern of the window lies within its
 * applications (a pattern is read as a name, so `payments-*` is allowed by a grant on
 * `payments-*` and not by one on `payments-api`) and every instance it names belongs to one of
 * them (an unknown instance counts as outside).
 */
export function mayManageWindow(scope: ApplicationScope, window: WindowScope, applicationOf: (id: string) => string | undefined): boolean {
  if (scope.all) return true;
  return window.applications.every((pattern) => scope.allows(pattern))
    && window.instances.every((id) => { const application = applicationOf(id); return application !== undefined && scope.allows(application); });
}

/** The `createdBy` of a window: the principal, or `anonymous` when no authentication is configured. */
export function creatorOf(principal: string | undefined): string {
  return principal && principal.trim() !== '' ? principal : 'anonymous';
}
