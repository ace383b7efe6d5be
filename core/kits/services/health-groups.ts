import { defineToken } from '../../plugin-api.js';

/**
 * The health groups each instance reported (Spring Boot's `groups` array in the health body,
 * e.g. `["liveness","readiness"]`), for `GET /instances/{id}/health-groups` as SBA serves it.
 * Provided under `HEALTH_GROUPS` by the plugin that reads health (`monitor`).
 */
export interface HealthGroups {
  /**
   * The distinct group names of the last health body that listed any (a body without `groups`
   * leaves them as they were, as in SBA); `[]` when none was seen or the instance deregistered.
   * May reject with `StoreUnavailableError` when they are kept in a shared store that is down.
   */
  groupsOf(id: string): Promise<readonly string[]>;
}

export const HEALTH_GROUPS = defineToken<HealthGroups>('vigil.health-groups');
