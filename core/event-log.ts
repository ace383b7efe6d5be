/**
 * # What an event log needs (`vigil/event-log`)
 *
 * A plugin that stores the registry's events elsewhere (`cluster-redis`) provides `EVENT_LOG` and
 * must keep them exactly as the in-memory log does: the same stored shape, the same seq base per
 * run, the same compaction of long histories. The contract (`EventLog`, its errors) and those
 * helpers are here, apart from the plugin contract, which every plugin reads.
 */
export {
  EVENT_LOG, StaleFenceError, StoreUnavailableError, VersionConflictError,
  type EventLog, type Fence, type InstanceTransition, type LogReceiver, type NewEvent, type RemoteHistories,
} from './contract/event-log.js';
export { compactionKind } from './store/held-events.js';
export { storedEvent } from './store/event-shape.js';
export { runSeqBase } from './store/seq-base.js';
