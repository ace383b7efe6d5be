import type { InstanceEvent } from '../../core/domain/index.js';
import type { OutboxItem } from '../../core/plugin-api.js';

interface StatusChange {
  readonly version: number;
  readonly at: number;
  readonly from: string;
  readonly to: string;
  /** A (re-)registration or deregistration: the status restarted at UNKNOWN. */
  readonly boundary: boolean;
}

/**
 * Flap damping (`hold`), decided from the instance's recorded history alone, so every node of a
 * cluster decides the same whichever of them is handed which change. A change is sent once it held
 * for `hold`: if another status change followed within the hold, this one is dropped (the later one
 * carries on); the change that is sent reports the status before the whole run of quick changes,
 * so UP → DOWN → UP within the hold is UP → UP, which is no change at all. A run does not reach
 * back into a maintenance window (`inWindow`): a change made inside one is its end report's, which
 * told the status the window left, so a change after the window is reported from that status.
 * Call it once `hold` has passed since the item's timestamp. Returns the `from` to report, or
 * undefined to send nothing.
 */
export async function heldChange(
  item: OutboxItem, history: readonly InstanceEvent[], holdMs: number, inWindow: (at: number) => Promise<boolean> = async () => false,
): Promise<{ from: string } | undefined> {
  const at = Date.parse(item.timestamp);
  const changes = statusChanges(history);
  if (changes.some((change) => !change.boundary && change.version > item.version && change.at - at < holdMs)) return undefined;
  let from = item.from;
  let since = at;
  for (let index = changes.length - 1; index >= 0; index--) {
    const change = changes[index]!;
    if (change.version >= item.version) continue;
    if (change.boundary || since - change.at >= holdMs || (await inWindow(change.at))) break;
    from = change.from;
    since = change.at;
  }
  return from === item.to ? undefined : { from };
}

/**
 * The status changes in an instance's held history, oldest first. A (re-)registration or a
 * deregistration ends a run of changes: the status restarts at UNKNOWN.
 */
function statusChanges(history: readonly InstanceEvent[]): StatusChange[] {
  const changes: StatusChange[] = [];
  let status = 'UNKNOWN';
  for (const event of history) {
    const at = Date.parse(event.timestamp);
    if (event.type === 'REGISTERED' || event.type === 'DEREGISTERED') {
      changes.push({ version: event.version, at, from: status, to: 'UNKNOWN', boundary: true });
      status = 'UNKNOWN';
    } else if (event.type === 'STATUS_CHANGED' && event.statusInfo.status !== status) {
      changes.push({ version: event.version, at, from: status, to: event.statusInfo.status, boundary: false });
      status = event.statusInfo.status;
    }
  }
  return changes;
}
