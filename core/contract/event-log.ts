import type { EventDraft, EventHeader, Instance, InstanceEvent } from '../store/types.js';
import { VigilError } from '../errors.js';
import { defineToken } from './tokens.js';

/** An event as the registry hands it to the log: everything but the `seq`, which the log assigns. */
export type NewEvent = Omit<EventHeader, 'seq'> & EventDraft;

/**
 * Proof that a singleton job's decision is still current: the lease it holds and the fencing
 * token it was granted (`Lease.token`). A log that can check it refuses a stale one.
 */
export interface Fence {
  readonly lease: string;
  readonly token: number;
}

/** An instance before and after one event. */
export interface InstanceTransition {
  readonly before: Instance;
  readonly after: Instance;
}

/** Where the log delivers what it holds and what is appended, by any node, in `seq` order. */
export interface LogReceiver {
  /**
   * The whole held state, when the log opens (and again after it had to reload): the current
   * snapshot of every instance it holds, their held events in `seq` order, and the seqs of this
   * incarnation of the log (`first`: the first it issued or will issue; `last`: the newest so
   * far). Replaces everything the receiver held. Events newer than their instance's snapshot (a
   * log read while writes went on) are left out: the log delivers them again through `event`.
   */
  load(snapshots: readonly Instance[], events: readonly InstanceEvent[], seqs: { readonly first: number; readonly last: number }): void;
  /**
   * One appended event, in `seq` order; an event already received (same `seq`) is ignored. For
   * an event this receiver's own `append` handed over, the log passes back the `change` it came
   * with, when it can tell it is that one: the receiver then holds `change.after` instead of
   * folding the event into its snapshot a second time. Without it (another node's event, or a
   * log that cannot tell) the receiver folds the event itself.
   */
  event(event: InstanceEvent, change?: InstanceTransition): void;
  /** An instance's history was dropped (retention ran out, or the cap on deregistered instances): forget it. */
  dropped(id: string): void;
  /*
   * The three below are for a log that serves histories (`EventLog.histories`): it calls them as
   * what it says the receiver holds changes. The registry has them; a receiver without them (a
   * test's wrapper) is never told, and holds what `holds` said when each history began.
   */
  /** The ids of every instance the receiver holds a snapshot of. */
  instanceIds?(): Iterable<string>;
  /**
   * `RemoteHistories.holds(id)` has just turned false (ownership moved): the receiver lets the
   * instance's history go, keeping its snapshot and the recent window.
   */
  released?(id: string): void;
  /**
   * `RemoteHistories.holds(id)` has just turned true for each of these instances: their whole
   * histories as the log holds them, oldest first, up to the newest event it delivered. The
   * receiver holds them from now on, and every event it is given after.
   */
  acquired?(histories: ReadonlyMap<string, readonly InstanceEvent[]>): void;
}

/**
 * The registry's log of instance events, provided under `EVENT_LOG` by a plugin that keeps it
 * elsewhere (`cluster-redis`); without one the kernel keeps it in memory. The kernel opens it
 * after every plugin set up and before the server listens, and closes it after plugins stopped.
 *
 * Guarantees a provider gives:
 * - **order**: every node's receiver gets the same events in the same `seq` order, its own
 *   appends and everyone else's; `seq` increases by one per event across all instances, and a
 *   new incarnation of the log starts above every `seq` an earlier one issued;
 * - **optimistic locking**: an append whose `version` is not above the instance's last one is
 *   refused with `VersionConflictError`, so of two writers that read the same version one loses;
 * - **bounds**: the history it keeps per instance follows `event-store.max-events-per-instance`
 *   with the kernel's compaction rule, so every node holds the same events; and it keeps at most
 *   `event-store.max-deregistered-instances` deregistered instances: an append of DEREGISTERED
 *   beyond that drops the instance deregistered longest ago (REGISTERED takes an instance off
 *   that list), as `drop` would, and every receiver is told through `dropped` after the event;
 * - **availability**: when it cannot write (its store is unreachable) `append` and `drop` reject
 *   with `StoreUnavailableError` at once, and reads go on from what was delivered.
 */
export interface EventLog {
  open(receiver: LogReceiver): Promise<void>;
  /**
   * Appends one event and resolves with it as stored (`seq` assigned) once it is durable in the
   * log. `change` is the instance before and after the event: logs keep the snapshot to reload
   * from, and the statuses for the outbox (`from`, `to`).
   * With a `fence`, the append is refused (`StaleFenceError`) unless the token is the lease's
   * current one. Delivery to receivers may come before or after the promise settles, and may
   * happen inside this call (the memory log delivers before it returns); the registry runs no
   * subscriber from there: it publishes what it applied after the appender's call returned.
   */
  append(event: NewEvent, change: InstanceTransition, fence?: Fence): Promise<InstanceEvent>;
  /** Drops an instance's whole history (retention); with a fence, only while it is still current. */
  drop(id: string, fence: Fence): Promise<void>;
  close(): Promise<void>;
  /**
   * A log that serves histories itself (`cluster-redis`), so a node need not hold every one:
   * the registry then holds only the histories `holds` names plus a window of the newest
   * events, and reads the rest here. Without it the registry holds everything it is given.
   */
  readonly histories?: RemoteHistories;
}

/**
 * Histories the log reads from where it keeps them. The receiver is given every event, but
 * keeps the history of an instance only while `holds` says so, and the newest `window` events
 * of every instance; whatever it does not hold it reads here, never above the seq it applied.
 * What `holds` says changes only as the log tells the receiver (`released`, `acquired`).
 */
export interface RemoteHistories {
  /** How many of the newest events (of every instance) the receiver keeps besides the histories it holds. */
  readonly window: number;
  /** Whether the receiver holds the whole history of `id` (it is given every event of it). */
  holds(id: string): boolean;
  /** The events with `after < seq <= upTo`, oldest first, in batches read as they are consumed. */
  read(after: number, upTo: number): AsyncIterable<readonly InstanceEvent[]>;
  /** The history of one instance up to `upTo`, oldest first. */
  readInstance(id: string, upTo: number): Promise<readonly InstanceEvent[]>;
}

export const EVENT_LOG = defineToken<EventLog>('vigil.event-log');

/** An append lost an optimistic-locking race: the instance is already at `current` in the log. */
export class VersionConflictError extends VigilError {
  constructor(readonly instance: string, readonly current: number) {
    super('ERR_VERSION_CONFLICT', `instance ${instance}: another write got in first (the log is at version ${current})`);
    this.name = 'VersionConflictError';
  }
}

/** A singleton job's write came with a token that is no longer current: another node holds the lease now. */
export class StaleFenceError extends VigilError {
  constructor(readonly fence: Fence, readonly current: number | undefined) {
    super('ERR_STALE_FENCE', `lease "${fence.lease}": token ${fence.token} is stale (current: ${current ?? 'none'}); the decision was not applied`);
    this.name = 'StaleFenceError';
  }
}

/**
 * The log cannot take writes now (its store is unreachable). The REST API answers 503 with
 * `Retry-After`; Spring Boot Admin clients re-register every 10 s, so registrations heal.
 */
export class StoreUnavailableError extends VigilError {
  constructor(message: string, readonly retryAfterSeconds = 5, options?: { cause?: unknown }) {
    super('ERR_STORE_UNAVAILABLE', message, options);
    this.name = 'StoreUnavailableError';
  }
}
