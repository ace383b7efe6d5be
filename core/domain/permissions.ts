import type { AccessGrant, AccessMe, Action } from '../contract/access.js';
import { globMatcher } from './glob.js';
import { roleAllows } from './roles.js';

/**
 * What a caller may do, read from its `GET /access/me`: the dashboard asks it before showing a
 * button. It answers by the kernel's own role table and globs; the kernel still decides every
 * request, this only keeps the page from offering what would be refused.
 */
export interface Permissions {
  /**
   * Whether the caller may do `action` to `application`; without one, to some application (for
   * what is about no single application: a refresh of all, a notification filter).
   */
  may(action: Action, application?: string): boolean;
  /** Whether the caller may read (or, `write`, write to) `endpoint` of an instance of `application` through the proxy. */
  mayUseEndpoint(endpoint: string, write: boolean, application: string): boolean;
}

/** The permissions of the caller `me` describes. */
export function permissionsOf(me: AccessMe): Permissions {
  const grants = me.grants.map((grant) => ({ grant, covers: globMatcher(grant.applications) }));
  const sensitive = new Set(me.sensitiveEndpoints);
  const adminOnly = new Set(me.adminEndpoints);
  const permits = (action: Action, elevated: boolean, application: string | undefined, grant: AccessGrant, covers: (name: string) => boolean) =>
    roleAllows(grant.role, action, elevated) && (application === undefined || covers(application));
  return {
    may: (action, application) => grants.some(({ grant, covers }) => permits(action, false, application, grant, covers)),
    mayUseEndpoint(endpoint, write, application) {
      const elevated = (write ? adminOnly : sensitive).has(endpoint);
      return grants.some(({ grant, covers }) => permits(write ? 'actuator.write' : 'actuator.read', elevated, application, grant, covers));
    },
  };
}
