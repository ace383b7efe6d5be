import { globMatcher } from '../../../core/domain/index.js';
import type { NotifiedEventType } from '../../../core/kits/notify-channel/index.js';
import type { RouteConfig } from './config.js';

/** What a route looks at in a notification. */
export interface RouteFacts {
  readonly application: string;
  /** Metadata and tags of the instance (of any instance of the application, for an application notification). */
  readonly metadata: readonly Readonly<Record<string, string>>[];
  readonly type: NotifiedEventType;
  /** The new status of an instance's change; none for an application notification. */
  readonly status?: string;
}

interface CompiledRoute {
  readonly applications: ((name: string) => boolean) | undefined;
  readonly metadata: readonly (readonly [key: string, matches: (value: string) => boolean])[];
  readonly types: ReadonlySet<string> | undefined;
  readonly statuses: ReadonlySet<string> | undefined;
  readonly to: readonly string[];
  readonly continue: boolean;
}

/**
 * `notify.routes`: which targets a notification goes to. Routes are tried in order; the first
 * that matches decides, unless it says `continue: true`, and then the next ones are tried too.
 * Without routes every target gets everything (`all`).
 */
export class Router {
  readonly #routes: readonly CompiledRoute[] | undefined;

  constructor(routes: readonly RouteConfig[] | undefined) {
    this.#routes = routes?.map((route) => ({
      applications: route.applications ? globMatcher(route.applications) : undefined,
      metadata: Object.entries(route.metadata ?? {}).map(([key, glob]) => [key, globMatcher([glob])] as const),
      types: route.types ? new Set(route.types) : undefined,
      statuses: route.statuses ? new Set(route.statuses) : undefined,
      to: route.to,
      continue: route.continue,
    }));
  }

  /** Whether routes are configured (else every target gets everything). */
  get routing(): boolean {
    return this.#routes !== undefined;
  }

  /** The targets a notification goes to: `all` without routes, else those of the matching routes (maybe none). */
  targetsOf(facts: RouteFacts): ReadonlySet<string> | 'all' {
    if (!this.#routes) return 'all';
    const targets = new Set<string>();
    for (const route of this.#routes) {
      if (!matches(route, facts)) continue;
      for (const target of route.to) targets.add(target);
      if (!route.continue) break;
    }
    return targets;
  }
}

function matches(route: CompiledRoute, facts: RouteFacts): boolean {
  if (route.applications && !route.applications(facts.application)) return false;
  if (route.types && !route.types.has(facts.type)) return false;
  // An application notification has no status of its own: `statuses` speaks of instances' changes.
  if (route.statuses && facts.status !== undefined && !route.statuses.has(facts.status.toUpperCase())) return false;
  if (route.metadata.length === 0) return true;
  return facts.metadata.some((metadata) => route.metadata.every(([key, value]) => metadata[key] !== undefined && value(metadata[key]!)));
}
