/**
 * # Access: what a route does, and what the caller may do
 *
 * Authentication plugins (`basic-auth`, `oidc`) only say who is calling (`req.principal`). What
 * that principal may do is decided in ONE place, which the kernel's router asks for every route
 * of every plugin before the handler runs (`AccessDecider`, built by `bin/` from the access kit,
 * `core/kits/access/decide.ts`): each route declares its action
 * (`RouteAccess`; none is `other`, which only `admin` may use), and the caller's grants (the
 * `access` section, plus the role its authentication plugin gives it) must allow it, else 403; a
 * `target` outside every application the caller may see answers 404 as an unknown one. Without an
 * `access` section and without roles, every signed-in caller may do everything. Requests no
 * authentication plugin identified (none loaded, or a path it leaves open) are not restricted.
 */
/**
 * Every action a route can declare. The audit trail records these names; keep them stable.
 * (`maintenance.manage` is for maintenance windows; `audit.read` for `GET /audit`.)
 */
export const ACTIONS = [
  'instances.read', 'instances.register', 'instances.deregister',
  'applications.read', 'applications.refresh', 'applications.deregister',
  'actuator.read', 'actuator.write',
  'notifications.read', 'notifications.manage', 'maintenance.manage',
  'metrics.read', 'probes.read', 'dashboard.read', 'api.read',
  'access.read', 'audit.read', 'public', 'other',
] as const;
export type Action = (typeof ACTIONS)[number];

/** The roles a grant gives (`access.grants[].role`, `basic-auth.users[].role`). */
export const ROLES = ['viewer', 'operator', 'admin', 'registration', 'metrics'] as const;
export type Role = (typeof ROLES)[number];

/** What a route declares in its options (`RouteOptions`). */
export interface RouteAccess {
  /** The action, or how to tell it from the request (the proxy: a read or a write). Default `other`. */
  readonly action?: Action | ((req: AccessRequest) => Action);
  /**
   * What the route is about: `instance` (the `:id` parameter) or `application` (`:name`). One the
   * caller may not see answers 404 `instance {id} not found` / `application {name} not found`,
   * exactly as an unknown one.
   */
  readonly target?: 'instance' | 'application';
  /**
   * The actuator endpoint the request is for (the proxy): one in `access.sensitive-endpoints`
   * needs `admin` to read, one in `access.admin-endpoints` needs `admin` to write.
   */
  readonly endpoint?: (req: AccessRequest) => string | undefined;
}

/** What the decision point reads of a request. */
export interface AccessRequest {
  readonly method?: string | undefined;
  readonly params: Record<string, string>;
  /** The request target as received (context path included, still percent-encoded). */
  readonly originalUrl: string;
}

/**
 * The applications a caller may see for the action decided: what a list route shows. `all` is
 * true for a caller whose grants cover every application (and for unrestricted requests); list
 * routes then skip filtering.
 */
export interface ApplicationScope {
  readonly all: boolean;
  /** Whether the caller may see this application (the instance's registration name). */
  allows(application: string): boolean;
}

/** The decision the kernel made for a request, on `req.access` once the handler runs. */
export interface AccessDecision {
  readonly action: Action;
  readonly scope: ApplicationScope;
  /** True for a read of a sensitive endpoint, or a write of an admin one (what the audit trail records). */
  readonly elevated?: boolean;
  /** True when the check refused the request (403 or 404): the handler did not run. */
  readonly refused?: boolean;
}

/** A grant: a role over applications (globs on the application name). */
export interface AccessGrant {
  readonly role: Role;
  readonly applications: readonly string[];
}

/** `GET /access/me`: who the caller is and what it was granted. */
export interface AccessMe {
  readonly name: string;
  readonly kind: 'user' | 'token' | 'anonymous';
  readonly via: 'basic' | 'token' | 'oidc' | null;
  readonly groups: readonly string[];
  readonly grants: readonly AccessGrant[];
  /** `access.sensitive-endpoints`: actuator endpoints only `admin` may read (none without an `access` section). */
  readonly sensitiveEndpoints: readonly string[];
  /** `access.admin-endpoints`: actuator endpoints only `admin` may write to (none without an `access` section). */
  readonly adminEndpoints: readonly string[];
}

/** Sees every application: unrestricted requests, and callers granted `*`. */
export const ALL_APPLICATIONS: ApplicationScope = Object.freeze({ all: true, allows: () => true });

/** Sees nothing: the scope of a refused request. */
export const NO_APPLICATIONS: ApplicationScope = Object.freeze({ all: false, allows: () => false });
