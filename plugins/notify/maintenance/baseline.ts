import type { Instance, InstanceEvent } from '../../../core/domain/index.js';

/**
 * The status an instance had at `at`, read from its recorded history (the same on every node),
 * so a window's "before" does not depend on when a node got round to opening it: a change in the
 * second between the window's start and its opening is still a change inside it. A (re-)
 * registration or a deregistration puts the status at UNKNOWN, as it does the instance; an
 * instance registered after `at` was UNKNOWN then, as a new instance is. When the history no
 * longer reaches back that far (compacted), the status now is the best answer there is.
 */
export function statusAt(instance: Instance, history: readonly InstanceEvent[], at: number): string {
  let status: string | undefined;
  for (const event of history) {
    if (Date.parse(event.timestamp) > at) {
      // Registered after `at`: the instance was not there yet.
      if (status === undefined && event.type === 'REGISTERED') status = 'UNKNOWN';
      break;
    }
    if (event.type === 'REGISTERED' || event.type === 'DEREGISTERED') status = 'UNKNOWN';
    else if (event.type === 'STATUS_CHANGED') status = event.statusInfo.status;
  }
  if (status !== undefined) return status;
  // No held event says what the status was then: the history was compacted past it.
  return history.length > 0 ? instance.statusInfo.status : 'UNKNOWN';
}
