import { ALL_APPLICATIONS, type AccessGrant, type AccessVerdict, type Action, type DecidedRequest, type RouteAccess } from '../../plugin-api.js';
import type { AccessPolicy } from './policy.js';
import { MACHINE_ROLES, OPEN_ACTIONS, SEEING_ROLES, roleAllows, weakestRoleFor } from './roles.js';
import { machineRefusal } from './messages.js';

/** How the decision point finds the application of an instance (the registry). */
export type ApplicationOfInstance = (id: string) => string | undefined;

const UNRESTRICTED = (action: Action): AccessVerdict => ({ kind: 'allow', decision: { action, scope: ALL_APPLICATIONS } });

/**
 * THE decision point: whether the caller of `req` may run the route declaring `access`. The
 * router calls it for every route, after authentication and before the handler. `exact` tells
 * whether the path is the route's own, letter for letter (machine roles get nothing else); it is
 * asked only for a caller holding a machine role.
 */
export function decide(policy: AccessPolicy, req: DecidedRequest, access: RouteAccess, applicationOf: ApplicationOfInstance, contextPath: string, exact: () => boolean): AccessVerdict {
  const declared = access.action ?? 'other';
  const action = typeof declared === 'function' ? declared(req) : declared;
  const principal = req.principal;
  // Nobody identified the caller: no authentication plugin is loaded, or it leaves this path open.
  if (principal === undefined || OPEN_ACTIONS.has(action)) return UNRESTRICTED(action);
  const grants = policy.grantsOf(principal);
  const write = req.method !== 'GET' && req.method !== 'HEAD';
  const elevated = policy.elevated(access.endpoint?.(req), write);
  // Anybody signed in may ask what it may do, even with no grant at all; machine credentials get only their paths.
  if (action === 'access.read' && !grants.some((grant) => MACHINE_ROLES.has(grant.role))) return { kind: 'allow', decision: { action, scope: policy.scopeOf(grants) } };
  const permitting = grants.filter((grant) => roleAllows(grant.role, action, elevated) && (!MACHINE_ROLES.has(grant.role) || exact()));
  if (permitting.length === 0) return { kind: 'refuse', status: 403, message: refusal(grants, action, elevated, contextPath, principal.name), action };
  const scope = policy.scopeOf(permitting);
  if (access.target === undefined || scope.all) return { kind: 'allow', decision: { action, scope, elevated } };
  const target = access.target === 'instance' ? applicationOf(req.params.id ?? '') : req.params.name;
  // An unknown instance is the handler's to answer (404, or 204 for a DELETE of one held).
  if (target === undefined || scope.allows(target)) return { kind: 'allow', decision: { action, scope, elevated } };
  // Seen but not to be touched: 403. Not seen at all: exactly as if it did not exist.
  if (policy.scopeOf(grants.filter((grant) => SEEING_ROLES.has(grant.role))).allows(target)) {
    return { kind: 'refuse', status: 403, message: `action "${action}" is not permitted to ${principal.name} on application ${target}`, action };
  }
  return access.target === 'instance'
    ? { kind: 'refuse', status: 404, message: `instance ${req.params.id} not found`, action }
    : { kind: 'refuse', status: 404, message: `application ${req.params.name} not found`, action };
}

/** A request no route matched: only callers who may read something learn that with a 404. */
export function mayMissRoutes(policy: AccessPolicy, req: DecidedRequest): boolean {
  const principal = req.principal;
  if (principal === undefined) return true;
  return policy.grantsOf(principal).some((grant) => SEEING_ROLES.has(grant.role));
}

/** The 403 message for a request no grant allows, for a route or (`other`) for no route. */
export function refusal(grants: readonly AccessGrant[], action: Action, elevated: boolean, contextPath: string, name: string): string {
  const roles = [...new Set(grants.map((grant) => grant.role))];
  // Machine credentials keep the message that says what they may do instead.
  if (roles.length === 1 && MACHINE_ROLES.has(roles[0]!)) return `${machineRefusal(roles[0]!, contextPath)} (action "${action}")`;
  const needed = weakestRoleFor(action, elevated);
  const held = roles.length === 0 ? 'no role' : `role ${roles.join(', ')}`;
  return `action "${action}" is not permitted to ${name} (${held}); it needs role ${needed}${elevated ? ' (a sensitive or admin endpoint)' : ''}`;
}
