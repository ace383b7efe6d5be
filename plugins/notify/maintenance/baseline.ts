import type { Instance, InstanceEvent } from '../../../core/domain/index.js';

/** An instance's status as its recorded history says it was just before some instant. */
export interface StatusBefore {
  readonly status: string;
  /** Whether it was registered then (one registered later, or deregistered by then, was not). */
  readonly registered: boolean;
  /** The version of its last event before the instant, and when its status last moved before it. */
  readonly version: number;
  readonly timestamp: string;
}

/**
 * The status an instance had just before `at`: the events recorded at `at` or later are not
 * applied. A window is `[start, end)` in the time of the recorded events, as the pipeline holds a
 * change back when its timestamp is inside it; so the status before `start` is the one before the
 * window, and the status before `end` is the one it left, which the end-of-window report compares,
 * whenever it gets round to it: a change in the end's millisecond, or after, is notified on its
 * own and is not the report's. Read from the history (the same on every node), not from the
 * instance now. A (re-)registration or a deregistration puts the status at UNKNOWN, as it does
 * the instance; an instance registered after `at` was UNKNOWN then, as a new instance is. When the
 * history no longer reaches back that far (compacted), the instance now is the best answer there is.
 */
export function statusBefore(instance: Instance, history: readonly InstanceEvent[], at: number): StatusBefore {
  let status: string | undefined;
  let registered: boolean | undefined;
  let version = -1;
  let timestamp = '';
  for (const event of history) {
    if (Date.parse(event.timestamp) >= at) {
      // Registered after `at`: the instance was not there yet.
      if (status === undefined && event.type === 'REGISTERED') return { status: 'UNKNOWN', registered: false, version: -1, timestamp: event.timestamp };
      break;
    }
    version = event.version;
    if (event.type === 'REGISTERED' || event.type === 'DEREGISTERED') {
      status = 'UNKNOWN';
      registered = event.type === 'REGISTERED';
      timestamp = event.timestamp;
    } else if (event.type === 'STATUS_CHANGED') {
      // A details-only change keeps the timestamp, as the instance's own does.
      if (event.statusInfo.status !== status) timestamp = event.timestamp;
      status = event.statusInfo.status;
    }
  }
  if (status !== undefined) return { status, registered: registered ?? true, version, timestamp };
  // No held event says what the status was then: the history was compacted past it.
  if (history.length === 0) return { status: 'UNKNOWN', registered: false, version: -1, timestamp: '' };
  return { status: instance.statusInfo.status, registered: instance.registered, version: instance.version, timestamp: instance.statusTimestamp };
}
