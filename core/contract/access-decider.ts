import type { AccessDecision, AccessRequest, Action, RouteAccess } from './access.js';
import type { Principal } from './principal.js';

/** What the decision point answers for one request. */
export type AccessVerdict =
  | { readonly kind: 'allow'; readonly decision: AccessDecision }
  | { readonly kind: 'refuse'; readonly status: 403 | 404; readonly message: string; readonly action: Action };

/** What the decision point reads of a request: the route's view of it, and who authentication said is calling. */
export interface DecidedRequest extends AccessRequest {
  readonly principal?: Principal | undefined;
}

/**
 * THE decision point, as the kernel's router asks it for every route of every plugin, after
 * authentication and before the handler (see `vigil/plugin`'s access section). The kernel knows
 * only this interface; the composition root (`bin/`) builds the decider from the `access` key and
 * replaces its policy on reload (the access kit).
 */
export interface AccessDecider {
  /**
   * Whether the caller of `req` may run the route declaring `access`. `exact` tells whether the
   * path is the route's own, letter for letter (machine roles get nothing else).
   */
  decide(req: DecidedRequest, access: RouteAccess, exact: () => boolean): AccessVerdict;
  /** A request no route matched: the 403 message for a caller who may not even learn that (it may read nothing), else undefined (a 404). */
  unmatched(req: DecidedRequest): string | undefined;
}
