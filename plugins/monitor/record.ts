import { StoreUnavailableError, type Command, type Ownership, type Registry } from '../../core/plugin-api.js';
import type { InstanceEvent } from '../../core/domain/index.js';

/**
 * Writes a check's result, if this node still owns the instance: one that lost it while the call
 * ran (another node took over) writes nothing. Ownership is only as fresh as the last heartbeat,
 * so a status result also checks that no other status was recorded since its call went out
 * (StatusUpdater). While the event log cannot take writes the result is dropped: the next check
 * after it is back writes whatever then differs, and the log's plugin reports the outage (once a
 * minute, not once per instance and check).
 */
export async function recordResult(registry: Registry, ownership: Ownership, id: string, command: Command): Promise<InstanceEvent | null> {
  if (!ownership.owns(id)) return null;
  try {
    return await registry.apply(id, command);
  } catch (error) {
    if (error instanceof StoreUnavailableError) return null;
    throw error;
  }
}
