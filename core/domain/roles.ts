import type { Action, Role } from '../contract/access.js';

/**
 * What each role may do: the one table the kernel's decision point (`core/kits/access/decide.ts`) and
 * the dashboard (which shows a button only where the caller may act) both read.
 */

/** What a `viewer` may do: read everything of its applications but sensitive endpoints. */
const VIEW: readonly Action[] = [
  'instances.read', 'applications.read', 'actuator.read', 'notifications.read', 'dashboard.read', 'api.read', 'probes.read',
];
/** An `operator`: a viewer who may also act on its applications. */
const OPERATE: readonly Action[] = [
  ...VIEW, 'instances.deregister', 'applications.deregister', 'applications.refresh', 'actuator.write', 'notifications.manage', 'maintenance.manage',
];

/**
 * The actions of each role. `admin` may do everything (its sensitive and admin endpoints too).
 * `registration` is for Spring Boot Admin clients: register and deregister, nothing else (letting a
 * leaked client credential read the registry or use the proxy would make the server call any URL,
 * SBA issue #5452). `metrics` is for Prometheus: the scrape, the targets, the probes.
 */
const ROLE_ACTIONS: Readonly<Record<Exclude<Role, 'admin'>, ReadonlySet<Action>>> = {
  viewer: new Set(VIEW),
  operator: new Set(OPERATE),
  registration: new Set<Action>(['instances.register', 'instances.deregister']),
  metrics: new Set<Action>(['metrics.read', 'probes.read']),
};

/**
 * Whether `role` allows `action`; `elevated` when the request is for a sensitive endpoint (a read)
 * or an admin endpoint (a write), which only `admin` may use.
 */
export function roleAllows(role: Role, action: Action, elevated: boolean): boolean {
  if (role === 'admin') return true;
  if (elevated) return false;
  return ROLE_ACTIONS[role].has(action);
}

/** The weakest role that allows an action, for the 403 message. */
export function weakestRoleFor(action: Action, elevated: boolean): Role {
  if (elevated) return 'admin';
  for (const role of ['viewer', 'operator', 'registration', 'metrics'] as const) if (ROLE_ACTIONS[role].has(action)) return role;
  return 'admin';
}
