import { ALL_APPLICATIONS, type AccessGrant, type ApplicationScope, type Principal, type Role } from '../../plugin-api.js';
import { globMatcher } from '../../domain/index.js';

/** The `access` section, as validated (absent: no section). */
export interface AccessSettings {
  readonly grants: readonly { readonly subjects: readonly string[]; readonly role: string; readonly applications: readonly string[] }[];
  readonly 'sensitive-endpoints': readonly string[];
  readonly 'admin-endpoints': readonly string[];
}

/** How many application names one scope remembers its answer for, before it starts again. */
const MEMO_LIMIT = 10_000;

/**
 * The `access` section turned into grants per principal. Scopes (unions of globs) are built once
 * per distinct set of globs and remember their answers per name, so filtering a long list or
 * fanning an event out to many streams matches each application name once.
 */
export class AccessPolicy {
  readonly configured: boolean;
  readonly #grants: readonly (AccessGrant & { readonly subjects: ReadonlySet<string> })[];
  readonly #sensitive: ReadonlySet<string>;
  readonly #adminOnly: ReadonlySet<string>;
  readonly #scopes = new Map<string, ApplicationScope>();

  constructor(settings: AccessSettings | undefined) {
    this.configured = settings !== undefined;
    this.#grants = (settings?.grants ?? []).map((grant) => ({
      subjects: new Set(grant.subjects), role: grant.role as Role, applications: [...grant.applications],
    }));
    this.#sensitive = new Set(settings?.['sensitive-endpoints'] ?? []);
    this.#adminOnly = new Set(settings?.['admin-endpoints'] ?? []);
  }

  /** The actuator endpoints only `admin` may read (`sensitive`) and write to (`admin`), for `GET /access/me`. */
  get elevatedEndpoints(): { readonly sensitive: readonly string[]; readonly admin: readonly string[] } {
    return { sensitive: [...this.#sensitive], admin: [...this.#adminOnly] };
  }

  /** Whether reading (or, `write`, writing) this actuator endpoint needs `admin`. */
  elevated(endpoint: string | undefined, write: boolean): boolean {
    if (endpoint === undefined) return false;
    return (write ? this.#adminOnly : this.#sensitive).has(endpoint);
  }

  /**
   * Everything a principal was granted: the role its authentication plugin gives it (over every
   * application), then each grant of `access.grants` naming it. A caller without a role and
   * without an `access` section is `admin`, as before access existed; an anonymous one gets nothing.
   */
  grantsOf(principal: Principal): AccessGrant[] {
    if (principal.kind === 'anonymous') return [];
    const grants: AccessGrant[] = [];
    if (principal.role !== undefined) grants.push({ role: principal.role, applications: ['*'] });
    else if (!this.configured) grants.push({ role: 'admin', applications: ['*'] });
    if (this.#grants.length === 0) return grants;
    const subjects = subjectsOf(principal);
    for (const grant of this.#grants) {
      if (subjects.some((subject) => grant.subjects.has(subject))) grants.push({ role: grant.role, applications: grant.applications });
    }
    return grants;
  }

  /** The union of some grants' applications, as one scope. */
  scopeOf(grants: readonly AccessGrant[]): ApplicationScope {
    const globs = [...new Set(grants.flatMap((grant) => grant.applications))].sort();
    if (globs.includes('*')) return ALL_APPLICATIONS;
    const key = globs.join('\n');
    let scope = this.#scopes.get(key);
    if (!scope) {
      scope = memoised(globMatcher(globs));
      // Bounded by the config (each distinct union of its grants' globs), not by callers.
      this.#scopes.set(key, scope);
    }
    return scope;
  }
}

/** The subjects a principal answers to in `access.grants[].subjects`. */
function subjectsOf(principal: Principal): string[] {
  // `*` is every signed-in person and token, but not a machine credential (an SBA client's, a
  // scraper's): a grant to everybody must not open the registry and the proxy to them.
  const machine = principal.role === 'registration' || principal.role === 'metrics';
  const subjects = machine ? [`${principal.kind}:${principal.name}`] : ['*', `${principal.kind}:${principal.name}`];
  for (const group of principal.groups) subjects.push(`group:${group}`);
  return subjects;
}

function memoised(matches: (name: string) => boolean): ApplicationScope {
  const answers = new Map<string, boolean>();
  return {
    all: false,
    allows(name: string): boolean {
      let answer = answers.get(name);
      if (answer === undefined) {
        // Names come from requests too (`/applications/{name}`): start again rather than grow without bound.
        if (answers.size >= MEMO_LIMIT) answers.clear();
        answer = matches(name);
        answers.set(name, answer);
      }
      return answer;
    },
  };
}
