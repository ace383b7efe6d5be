import type { Action, Role } from '../../plugin-api.js';

// The role table lives in the domain, so the dashboard decides which buttons to show by the same rules.
export { roleAllows, weakestRoleFor } from '../../domain/index.js';

/** Actions every caller may use, whatever its grants: the sign-in pages. */
export const OPEN_ACTIONS: ReadonlySet<Action> = new Set<Action>(['public']);

/** Roles of machines, whose permissions are exact paths (see `decide`). */
export const MACHINE_ROLES: ReadonlySet<Role> = new Set<Role>(['registration', 'metrics']);

/** Roles that may see an application's instances (what decides 404 against 403). */
export const SEEING_ROLES: ReadonlySet<Role> = new Set<Role>(['viewer', 'operator', 'admin']);
