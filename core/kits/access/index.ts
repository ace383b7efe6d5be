/**
 * # The access kit
 *
 * The decision point behind every route: the `access` section turned into grants per caller
 * (`AccessPolicy`), the one function that decides whether a caller may run a route (`decide`),
 * and `GET /access/me`. The kernel's router only knows the `AccessDecider` interface of the plugin
 * contract; the composition root (`bin/kernel-parts.ts`) builds the decider from the `access` key
 * and replaces its policy on reload. Not a published export: plugins get the decision already
 * made, on `req.access` (and `vigil/access-scope` to filter by it). The kit uses only the plugin
 * contract (`vigil/plugin`, `vigil/domain`).
 */
export { accessDecisionPoint, type AccessDecisionPoint } from './decision-point.js';
export type { AccessSettings } from './policy.js';
