import type { EventBus } from '../bus.js';
import { StoreUnavailableError, VersionConflictError, type EventLog, type LogReceiver, type NewEvent } from '../contract/event-log.js';
import type { Leases } from '../contract/coordination.js';
import { messageOf } from '../errors.js';
import type { Logger, WriteOptions } from '../plugin-api.js';
import { toApplication } from './application.js';
import { boundDraft, repeatsCurrent } from './bounds.js';
import { deregisterCommand, registerCommand, type Command } from './commands.js';
import { storedEvent } from './event-shape.js';
import { heldEndpoints } from './held-endpoints.js';
import { HeldEvents } from './held-events.js';
import { instanceIdOf } from './instance-id.js';
import { Fifo } from '../fifo.js';
import { applyEvent, emptyInstance, retiredInstance, retiredStateOf, withEndpoints } from './instance.js';
import { RetirementQueue } from './retirement-queue.js';
import { retiredDetails } from './sealed-history.js';
import type { Application, Endpoint, Instance, InstanceEvent, Registration } from './types.js';
import { Waiters } from './waiters.js';

/** Re-runs of a command after a lost optimistic-locking race, as SBA's repository allows. */
const MAX_ATTEMPTS = 10;
/** How long a writer that lost a race waits for its snapshot to catch up before it gives up. */
const CATCH_UP_MS = 5000;
/**
 * How many of the latest deregistrations stay held as objects before their histories are sealed:
 * what follows a deregistration (its notifications, streams, checks still under way) reads them
 * as they are, and only those that stay gone a while are compressed.
 */
const RECENT_DEREGISTRATIONS = 64;
/** The lease of the retention sweep: one node drops a deregistered instance's history, all forget it. */
export const RETENTION_LEASE = 'retention';

export interface RegistryOptions {
  /** How long a deregistered instance's events stay before they are dropped (ms). */
  readonly retentionAfterDeregistration: number;
  /** Largest status details or info an event may carry, in bytes of JSON; larger ones are cut. */
  readonly maxDetailsBytes: number;
  readonly maxEventsPerInstance: number;
  readonly log: Logger;
  /** Clock, replaceable in tests. */
  readonly now?: () => number;
}

/**
 * The instance registry: this node's snapshots and held events, built from what the event log
 * delivers (its own appends and every other node's, in `seq` order), and the one way to change
 * an instance. A write resolves once the snapshot holds it. Every applied event is published on
 * the bus as `instance.changed`.
 */
export class InstanceRegistry implements LogReceiver {
  /** Instances held as objects: the registered ones and the latest deregistered; the rest are in `#held`, sealed. */
  readonly #snapshots = new Map<string, Instance>();
  /** Deregistered instances held as objects, oldest first, to seal beyond `RECENT_DEREGISTRATIONS`. */
  readonly #toSeal = new Fifo<string>();
  readonly #held: HeldEvents;
  /** Deregistered instances, to drop once their retention runs out (they leave in the order they left). */
  readonly #retention: RetirementQueue;
  /** Drops to try again: this node did not hold the retention lease, or the log refused. */
  readonly #retries: RetirementQueue;
  /** Writers waiting for their event's seq to be applied. */
  readonly #seqWaiters = new Waiters();
  /** Writers that lost a race, waiting for an instance's snapshot to reach a version. */
  readonly #versionWaiters = new Map<string, Waiters>();
  readonly #now: () => number;
  #log: EventLog | undefined;
  #leases: Leases | undefined;
  #firstSeq = 1;
  #lastSeq = 0;
  #lastTimestamp = 0;
  /** The ISO form of `#lastTimestamp`: events of one millisecond share one string. */
  #lastIso = '';

  constructor(private readonly bus: EventBus, private readonly options: RegistryOptions) {
    this.#now = options.now ?? Date.now;
    this.#retention = new RetirementQueue((id) => this.#retire(id), this.#now);
    this.#retries = new RetirementQueue((id) => this.#retire(id), this.#now);
    this.#held = new HeldEvents(options.maxEventsPerInstance);
  }

  /** Opens `log` and loads what it holds; until then every write fails. */
  async open(log: EventLog, leases: Leases): Promise<void> {
    this.#log = log;
    this.#leases = leases;
    leases.lease(RETENTION_LEASE);
    await log.open(this);
  }

  async close(): Promise<void> {
    const log = this.#log;
    this.#log = undefined;
    this.dispose();
    await log?.close();
  }

  /** Registers or re-registers; records REGISTERED, REGISTRATION_UPDATED, or nothing for an equal heartbeat. */
  async register(registration: Registration, options: WriteOptions = {}): Promise<{ id: string; event: InstanceEvent | null }> {
    const id = instanceIdOf(registration.healthUrl);
    return { id, event: await this.apply(id, registerCommand(registration), options) };
  }

  /** Records DEREGISTERED. Returns false for an id never seen (or already dropped). */
  async deregister(id: string, options: WriteOptions = {}): Promise<boolean> {
    if (!this.#has(id)) return false;
    await this.apply(id, deregisterCommand, options);
    return true;
  }

  /**
   * Runs a command against the latest snapshot and appends the event it decides on. If another
   * writer got in first, the command is re-run once the snapshot holds the newer version.
   */
  async apply(id: string, command: Command, options: WriteOptions = {}): Promise<InstanceEvent | null> {
    for (let attempt = 1; ; attempt += 1) {
      const log = this.#log;
      if (!log) throw new StoreUnavailableError('the registry is not open');
      const previous = this.get(id) ?? emptyInstance(id);
      const decided = command(previous);
      if (!decided) return null;
      const draft = boundDraft(decided, this.options.maxDetailsBytes);
      if (draft !== decided && repeatsCurrent(draft, previous)) return null;
      // The held id string, not the caller's equal copy (a request path's), goes into the event.
      const event: NewEvent = { ...draft, instance: previous.id, version: previous.version + 1, timestamp: this.#timestamp() };
      try {
        const stored = await log.append(event, { before: previous, after: applyEvent(previous, { ...event, seq: 0 } as InstanceEvent) }, options.fence);
        if (stored.seq > this.#lastSeq && !(await this.#seqWaiters.until(stored.seq, CATCH_UP_MS))) {
          // Recorded, but this node's copy lags: the snapshot will hold it once the log catches up.
          this.options.log.warn(`event ${stored.seq} of ${id} was recorded but has not reached this node's snapshot within ${CATCH_UP_MS} ms`);
        }
        return stored;
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= MAX_ATTEMPTS) throw error;
        await this.#versionReached(id, error.current);
      }
    }
  }

  /** An instance by id, registered or not, while its history is held. */
  get(id: string): Instance | undefined {
    const snapshot = this.#snapshots.get(id);
    if (snapshot) return snapshot;
    const retired = this.#held.retired(id);
    return retired && retiredInstance(id, retired.leftVersion, () => retiredDetails(retired));
  }

  /** The registered instances, optionally only those of one application name. */
  list(name?: string): Instance[] {
    const result: Instance[] = [];
    for (const instance of this.#snapshots.values()) {
      if (instance.registered && (name === undefined || instance.registration?.name === name)) result.push(instance);
    }
    return result;
  }

  /** Registered instances grouped by name. */
  applications(): Application[] {
    const groups = new Map<string, Instance[]>();
    for (const instance of this.list()) {
      const name = instance.registration!.name;
      const group = groups.get(name);
      if (group) group.push(instance);
      else groups.set(name, [instance]);
    }
    return [...groups].map(([name, instances]) => toApplication(name, instances));
  }

  /** One application; with no registered instance it has `instances: []` and status UNKNOWN. */
  application(name: string): Application {
    return toApplication(name, this.list(name));
  }

  /** Every held event in `seq` order. */
  events(): InstanceEvent[] {
    return this.#held.all();
  }

  get eventCount(): number {
    return this.#held.size;
  }

  eventsOf(id: string): readonly InstanceEvent[] {
    return this.#held.ofInstance(id);
  }

  /** Held events recorded after `seq` (an event's `seq`, the SSE id), oldest first. */
  eventsSince(seq: number): InstanceEvent[] {
    return this.#held.since(seq);
  }

  get lastSeq(): number {
    return this.#lastSeq;
  }

  /** Where a stream resumes after a client's `Last-Event-ID`: the id when this log issued it, else 0 (everything held). */
  resumePoint(lastEventId: number): number {
    return lastEventId >= this.#firstSeq - 1 && lastEventId <= this.#lastSeq ? lastEventId : 0;
  }

  async waitForSeq(seq: number, timeoutMs: number): Promise<boolean> {
    return seq <= this.#lastSeq || this.#seqWaiters.until(seq, timeoutMs);
  }

  /** LogReceiver: the log's whole state, replacing this node's. */
  load(snapshots: readonly Instance[], events: readonly InstanceEvent[], seqs: { readonly first: number; readonly last: number }): void {
    const reloaded = this.#snapshots.size > 0 || this.#lastSeq > 0;
    this.dispose();
    this.#snapshots.clear();
    this.#held.clear();
    this.#toSeal.clear();
    const leaving: { instance: Instance; since: number }[] = [];
    for (const loaded of snapshots) {
      const instance = loaded.endpoints.length === 0 ? loaded : withEndpoints(loaded, heldEndpoints(loaded.endpoints, loaded.registration));
      this.#snapshots.set(instance.id, instance);
      const since = this.#deregisteredAt(instance);
      if (since !== undefined) leaving.push({ instance, since });
    }
    // The retention queue retires in the order entries come: the longest gone first.
    leaving.sort((a, b) => a.since - b.since);
    for (const { instance, since } of leaving) this.#scheduleRetention(instance, since);
    // A history read after its snapshot may run ahead of it; those events come again through
    // `event` (their seq is past `last`) and would otherwise be held twice.
    for (const event of events) {
      const snapshot = this.#snapshots.get(event.instance);
      if (snapshot && event.version <= snapshot.version) this.#held.add(withHeldEndpoints(event, snapshot.registration, snapshot.endpoints));
    }
    for (const { instance } of leaving) this.#toSeal.push(instance.id);
    this.#sealBeyondRecent();
    this.#firstSeq = seqs.first;
    this.#lastSeq = seqs.last;
    // Whatever they waited for is either in this state now or gone with the old one.
    this.#seqWaiters.releaseAll();
    for (const waiters of this.#versionWaiters.values()) waiters.releaseAll();
    if (reloaded) this.bus.emit('instances.reloaded', { instances: snapshots.length });
  }

  /** LogReceiver: one event, in `seq` order. */
  event(event: InstanceEvent): void {
    if (event.seq <= this.#lastSeq) return;
    const previous = this.get(event.instance) ?? emptyInstance(event.instance);
    this.#lastSeq = event.seq;
    // Versions only grow: an event the snapshot already covers (a reload overtook it) changes nothing.
    if (event.version <= previous.version) this.options.log.debug(`event ${event.seq} of ${event.instance} (version ${event.version}) is older than what is held (${previous.version}): not applied`);
    if (event.version > previous.version) {
      event = withHeldEndpoints(event, previous.registration);
      const instance = applyEvent(previous, event);
      this.#snapshots.set(event.instance, instance);
      this.#held.add(event);
      if (event.type === 'DEREGISTERED' || event.type === 'REGISTERED') this.#scheduleRetention(instance, this.#deregisteredAt(instance));
      this.bus.emit('instance.changed', { event, instance, previous });
      this.#versionWaiters.get(event.instance)?.releaseUpTo(instance.version);
      if (event.type === 'DEREGISTERED') {
        this.#toSeal.push(event.instance);
        this.#sealBeyondRecent();
      }
    }
    this.#seqWaiters.releaseUpTo(event.seq);
  }

  /** LogReceiver: an instance's history was dropped. */
  dropped(id: string): void {
    this.#cancelRetirement(id);
    this.#snapshots.delete(id);
    this.#held.drop(id);
  }

  /** Cancels pending retention timers. */
  dispose(): void {
    this.#retention.clear();
    this.#retries.clear();
  }

  /** Neither the retention nor a retry drops `id` any more. */
  #cancelRetirement(id: string): void {
    this.#retention.cancel(id);
    this.#retries.cancel(id);
  }

  /** Whether an instance is held, as an object or sealed. */
  #has(id: string): boolean {
    return this.#snapshots.has(id) || this.#held.retired(id) !== undefined;
  }

  /** Seals the histories of the deregistered instances beyond the latest few, those still gone. */
  #sealBeyondRecent(): void {
    while (this.#toSeal.size > RECENT_DEREGISTRATIONS) {
      const id = this.#toSeal.shift()!;
      const snapshot = this.#snapshots.get(id);
      const retired = snapshot && retiredStateOf(snapshot);
      if (retired && this.#held.seal(id, retired)) this.#snapshots.delete(id);
    }
  }

  /** Resolves once the snapshot of `id` is at `version` or newer, or after a while (the retry then loses again or wins). */
  async #versionReached(id: string, version: number): Promise<void> {
    if ((this.get(id)?.version ?? -1) >= version) return;
    let waiters = this.#versionWaiters.get(id);
    if (!waiters) this.#versionWaiters.set(id, (waiters = new Waiters()));
    try {
      await waiters.until(version, CATCH_UP_MS);
    } finally {
      if (waiters.size === 0) this.#versionWaiters.delete(id);
    }
  }

  /** ISO timestamps that never go backwards on this node, so the history stays ordered by time too. */
  #timestamp(): string {
    const now = Math.max(this.#now(), this.#lastTimestamp);
    if (now !== this.#lastTimestamp || this.#lastIso === '') this.#lastIso = new Date(now).toISOString();
    this.#lastTimestamp = now;
    return this.#lastIso;
  }

  /** When a loaded deregistered instance left: its status timestamp, which DEREGISTERED sets. */
  #deregisteredAt(instance: Instance): number | undefined {
    return instance.registered ? undefined : Date.parse(instance.statusTimestamp);
  }

  /**
   * A deregistered instance is forgotten once its retention runs out; re-registering cancels
   * that. Only the holder of the retention lease drops it from the log (with its fencing token),
   * and every node forgets it when the log says so; a node without the lease looks again later,
   * in case the holder is gone by then.
   */
  #scheduleRetention(instance: Instance, since: number | undefined): void {
    this.#cancelRetirement(instance.id);
    if (instance.registered || since === undefined) return;
    this.#retention.schedule(instance.id, since + this.options.retentionAfterDeregistration);
  }

  #retire(id: string): void {
    const lease = this.#leases?.lease(RETENTION_LEASE);
    const log = this.#log;
    if (!log || !this.#has(id)) return;
    // One delay for every retry keeps that queue in order too.
    const retryAt = this.#now() + (Math.min(this.options.retentionAfterDeregistration, 10_000) || 1000);
    if (!lease?.held || lease.token === undefined) {
      this.#retries.schedule(id, retryAt);
      return;
    }
    log.drop(id, { lease: RETENTION_LEASE, token: lease.token }).catch((error: unknown) => {
      this.options.log.warn(`could not drop the history of ${id} (will try again): ${messageOf(error)}`);
      if (this.#has(id) && !this.#retention.has(id) && !this.#retries.has(id)) this.#retries.schedule(id, retryAt);
    });
  }
}

/**
 * An ENDPOINTS_DETECTED event with its endpoints as a node holds them (`heldEndpoints`), under
 * the management URL the instance had when it was detected; `current`, the snapshot's array when
 * it lists the same, is shared instead of held twice. Every other event is returned as it is.
 */
function withHeldEndpoints(event: InstanceEvent, registration: Registration | null, current?: readonly Endpoint[]): InstanceEvent {
  if (event.type !== 'ENDPOINTS_DETECTED') return event;
  const endpoints = current && sameEndpoints(current, event.endpoints) ? current
    : heldEndpoints(event.endpoints, registration);
  const { seq, ...rest } = event;
  return storedEvent({ ...rest, endpoints }, seq);
}

function sameEndpoints(a: readonly Endpoint[], b: readonly Endpoint[]): boolean {
  return a.length === b.length && a.every((endpoint, i) => endpoint.id === b[i]!.id && endpoint.url === b[i]!.url);
}
