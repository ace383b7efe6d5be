import type { AccessDecider, PluginContext } from '../../plugin-api.js';
import { decide, mayMissRoutes, refusal, type ApplicationOfInstance } from './decide.js';
import { accessMeRoute } from './me-route.js';
import { AccessPolicy, type AccessSettings } from './policy.js';

/** The decider the kernel's router asks, and how a reloaded `access` section replaces its policy. */
export interface AccessDecisionPoint {
  readonly decider: AccessDecider;
  replace(settings: AccessSettings | undefined): void;
}

/**
 * The kernel's decision point from the `access` section: every route of every plugin is checked
 * against the caller's grants before its handler runs, with the policy in effect at that moment
 * (`replace` swaps it on reload, for the next request). Adds `GET /access/me` through `http`.
 */
export function accessDecisionPoint(
  settings: AccessSettings | undefined,
  http: Pick<PluginContext['http'], 'contextPath' | 'route' | 'sendJson'>,
  applicationOf: ApplicationOfInstance,
): AccessDecisionPoint {
  let policy = new AccessPolicy(settings);
  const contextPath = http.contextPath;
  accessMeRoute(http, () => policy);
  return {
    decider: {
      decide: (req, access, exact) => decide(policy, req, access, applicationOf, contextPath, exact),
      unmatched: (req) => {
        // No route: a 404, but a caller who may read nothing (a machine credential) learns only that it may not.
        const principal = req.principal;
        if (principal === undefined || mayMissRoutes(policy, req)) return undefined;
        return refusal(policy.grantsOf(principal), 'other', false, contextPath, principal.name);
      },
    },
    replace: (next) => {
      policy = new AccessPolicy(next);
    },
  };
}
