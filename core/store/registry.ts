import type { EventBus } from '../bus.js';
import { StoreUnavailableError, VersionConflictError, type EventLog, type InstanceTransition, type LogReceiver, type NewEvent, type RemoteHistories } from '../contract/event-log.js';
import type { Leases } from '../contract/coordination.js';
import { messageOf } from '../errors.js';
import type { Logger, WriteOptions } from '../plugin-api.js';
import { toApplication } from './application.js';
import { boundDraft, repeatsCurrent } from './bounds.js';
import { deregisterCommand, registerCommand, type Command } from './commands.js';
import { heldEndpoints, withHeldEndpoints } from './held-endpoints.js';
import { HeldEvents } from './held-events.js';
import { instanceIdOf } from './instance-id.js';
import { Fifo } from '../fifo.js';
import { emptyInstance, retiredInstance, retiredStateOf } from './instance.js';
import { RecentEvents } from './recent-events.js';
import { applyCompactly, compactInstance } from './compact-instance.js';
import { RetirementQueue } from './retirement-queue.js';
import { retiredDetails } from './sealed-history.js';
import type { Application, EventDraft, Instance, InstanceEvent, Registration } from './types.js';
import { Waiters } from './waiters.js';

/** A command's decision: the event to record and the instance as held when it was decided (undefined: unknown). */
interface Decided {
  readonly held: Instance | undefined;
  readonly draft: EventDraft;
}

/** What a write that records nothing resolves with. */
const NOTHING: Promise<null> = Promise.resolve(null);

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
  /** Where the histories this node does not hold are read, when the log serves them (a cluster). */
  #remote: RemoteHistories | undefined;
  /** With `#remote`: the newest events of every instance. */
  #recent: RecentEvents | undefined;
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
    this.#remote = log.histories;
    this.#recent = this.#remote && new RecentEvents(this.#remote.window);
    await log.open(this);
  }

  async close(): Promise<void> {
    const log = this.#log;
    this.#log = undefined;
    this.dispose();
    await log?.close();
  }

  /**
   * Registers or re-registers; records REGISTERED, REGISTRATION_UPDATED, or nothing for an equal
   * heartbeat. The one place a heartbeat is told from a change: `registerCommand`, run here.
   */
  register(registration: Registration, options: WriteOptions = {}): Promise<{ id: string; event: InstanceEvent | null }> {
    const id = instanceIdOf(registration.healthUrl);
    return this.apply(id, registerCommand(registration), options).then((event) => ({ id, event }));
  }

  /** Records DEREGISTERED. Returns false for an id never seen (or already dropped). */
  async deregister(id: string, options: WriteOptions = {}): Promise<boolean> {
    if (!this.#has(id)) return false;
    await this.apply(id, deregisterCommand, options);
    return true;
  }

  /**
   * Runs a command against the latest snapshot and appends the event it decides on. With a
   * `turn`, a command that decided on a change waits for it first, and runs again after the wait
   * only if the instance changed meanwhile. Nothing to record resolves at once, without a wait.
   * A write waiting for its turn holds only its decision (thousands may wait during a burst).
   */
  apply(id: string, command: Command, options: WriteOptions = {}): Promise<InstanceEvent | null> {
    let decided: Decided | null;
    try {
      decided = this.#decide(id, this.get(id), command);
    } catch (error) {
      return Promise.reject(error);
    }
    if (!decided) return NOTHING;
    const { turn } = options;
    if (!turn) return this.#append(id, command, options, decided);
    return turn().then(() => this.#append(id, command, options, this.get(id) === decided.held ? decided : undefined));
  }

  /**
   * Appends what was `decided` (or, without it, what `command` decides now). If another writer
   * got in first, the command is re-run once the snapshot holds the newer version.
   */
  async #append(id: string, command: Command, options: WriteOptions, decided: Decided | null | undefined): Promise<InstanceEvent | null> {
    for (let attempt = 1; ; attempt += 1) {
      if (attempt > 1 || decided === undefined) decided = this.#decide(id, this.get(id), command);
      if (!decided) return null;
      const log = this.#log;
      if (!log) throw new StoreUnavailableError('the registry is not open');
      const previous = decided.held ?? emptyInstance(id);
      // The held id string, not the caller's equal copy (a request path's), goes into the event.
      const event: NewEvent = { ...decided.draft, instance: previous.id, version: previous.version + 1, timestamp: this.#timestamp() };
      // Folded once, here: the log delivers this transition back with the event, and it is what the snapshot becomes.
      const change: InstanceTransition = { before: previous, after: applyCompactly(previous, { ...event, seq: 0 } as InstanceEvent) };
      try {
        const stored = await log.append(event, change, options.fence);
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

  /**
   * What `command` records against `held` (the instance as held, undefined when unknown), bounded
   * as it will be held, with endpoints in their held form, and the state it was decided on; null
   * for nothing.
   */
  #decide(id: string, held: Instance | undefined, command: Command): Decided | null {
    const current = held ?? emptyInstance(id);
    const decided = command(current);
    if (!decided) return null;
    const draft = boundDraft(decided, this.options.maxDetailsBytes);
    if (draft !== decided && repeatsCurrent(draft, current)) return null;
    return { held, draft: draft.type === 'ENDPOINTS_DETECTED' ? { ...draft, endpoints: heldEndpoints(draft.endpoints, current.registration) } : draft };
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
    if (this.#recent && !this.#holds(id)) return this.#recent.ofInstance(id);
    return this.#held.ofInstance(id);
  }

  /** Held events recorded after `seq` (an event's `seq`, the SSE id), oldest first. */
  eventsSince(seq: number): InstanceEvent[] {
    return this.#recent ? this.#recent.since(seq) : this.#held.since(seq);
  }

  /** `eventsSince` and `eventsOf` hold every event after this seq; 0 when they hold everything. */
  get completeAfter(): number {
    return this.#recent?.complete ?? 0;
  }

  /** Every event with `after < seq <= upTo`, oldest first, in batches: from memory, or read from the log. */
  async *readEvents(after: number, upTo: number = this.#lastSeq): AsyncIterable<readonly InstanceEvent[]> {
    if (this.#remote && after < this.completeAfter) {
      const batches = this.#remote.read(after, upTo)[Symbol.asyncIterator]();
      let first: IteratorResult<readonly InstanceEvent[]>;
      try {
        first = await batches.next();
      } catch (error) {
        // The log is unreachable (an outage): reads go on from what this node holds, as they did
        // when it held everything; only instances it holds no history of are incomplete.
        this.options.log.debug(`events read from memory, the log is unreachable: ${messageOf(error)}`);
        yield this.#heldInMemory(after, upTo);
        return;
      }
      for (let batch = first; !batch.done; batch = await batches.next()) yield batch.value;
      return;
    }
    const events = this.eventsSince(after);
    const end = events.findLastIndex((event) => event.seq <= upTo) + 1;
    yield end === events.length ? events : events.slice(0, end);
  }

  /** The history of one instance as this node applied it: held, or read from the log (its newest events while the log is unreachable). */
  async readEventsOf(id: string): Promise<readonly InstanceEvent[]> {
    if (!this.#remote || this.#holds(id)) return this.eventsOf(id);
    try {
      return await this.#remote.readInstance(id, this.#lastSeq);
    } catch {
      // A log's read may also throw before it returns a promise: the promise never rejects.
      return this.eventsOf(id);
    }
  }

  /** The held histories and the recent window merged, `after < seq <= upTo`, in seq order. */
  #heldInMemory(after: number, upTo: number): InstanceEvent[] {
    const held = this.#held.since(after);
    const recent = this.#recent?.since(after).filter((event) => !this.#holds(event.instance)) ?? [];
    const merged: InstanceEvent[] = [];
    let i = 0;
    let j = 0;
    while (i < held.length || j < recent.length) {
      const next = j >= recent.length || (i < held.length && held[i]!.seq < recent[j]!.seq) ? held[i++]! : recent[j++]!;
      if (next.seq <= upTo) merged.push(next);
    }
    return merged;
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
      const instance = compactInstance(loaded);
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
      if (snapshot && event.version <= snapshot.version && this.#holds(event.instance)) this.#held.add(withHeldEndpoints(event, snapshot.registration, snapshot));
    }
    for (const { instance } of leaving) this.#toSeal.push(instance.id);
    this.#sealBeyondRecent();
    this.#firstSeq = seqs.first;
    this.#lastSeq = seqs.last;
    this.#recent?.reset(seqs.last);
    // Whatever they waited for is either in this state now or gone with the old one.
    this.#seqWaiters.releaseAll();
    for (const waiters of this.#versionWaiters.values()) waiters.releaseAll();
    // Posted, so it reaches subscribers after the changes applied before it.
    if (reloaded) this.bus.post('instances.reloaded', { instances: snapshots.length });
  }

  /**
   * LogReceiver: one event, in `seq` order. Applied to the snapshot at once (a read right after
   * the write sees it) and posted on the bus, so subscribers run after the writer's call, in
   * `seq` order, from the bus's one queue.
   */
  event(event: InstanceEvent, change?: InstanceTransition): void {
    if (event.seq <= this.#lastSeq) return;
    const held = this.get(event.instance);
    // This node's own write, decided on the snapshot still held: its transition is the new
    // snapshot. Anything else (another node's event, or a snapshot that moved) is folded here.
    const own = change !== undefined && change.after.version === event.version
      && (change.before === held || (held === undefined && change.before.version < 0));
    const previous = own ? change.before : held ?? emptyInstance(event.instance);
    this.#lastSeq = event.seq;
    // Versions only grow: an event the snapshot already covers (a reload overtook it) changes nothing.
    if (event.version <= previous.version) this.options.log.debug(`event ${event.seq} of ${event.instance} (version ${event.version}) is older than what is held (${previous.version}): not applied`);
    if (event.version > previous.version) {
      event = withHeldEndpoints(event, previous.registration, own ? change.after : undefined);
      const holds = this.#holds(event.instance);
      const instance = own ? change.after : applyCompactly(previous, event);
      this.#snapshots.set(event.instance, instance);
      if (holds) this.#held.add(event);
      this.#recent?.add(event);
      if (event.type === 'DEREGISTERED' || event.type === 'REGISTERED') this.#scheduleRetention(instance, this.#deregisteredAt(instance));
      this.bus.post('instance.changed', { event, instance, previous });
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
    this.#recent?.drop(id);
  }

  /** LogReceiver: the ids of every instance held as a snapshot. */
  instanceIds(): Iterable<string> {
    return this.#snapshots.keys();
  }

  /** LogReceiver: this node lets the history of `id` go (it no longer checks it); its snapshot stays, compactly. */
  released(id: string): void {
    // Read before the history goes: a deregistered instance's sealed history is its snapshot.
    const instance = this.get(id);
    this.#held.drop(id);
    if (instance) this.#snapshots.set(id, compactInstance(instance));
  }

  /**
   * LogReceiver: this node holds these histories from now on (it came to check the instances),
   * as read from the log up to the newest event applied: each snapshot in its full form, its
   * endpoints shared with its events as a load holds them.
   */
  acquired(histories: ReadonlyMap<string, readonly InstanceEvent[]>): void {
    const held = new Map<string, InstanceEvent[]>();
    for (const [id, events] of histories) {
      const snapshot = this.#snapshots.get(id);
      if (!snapshot) continue;
      held.set(id, events.filter((event) => event.version <= snapshot.version).map((event) => withHeldEndpoints(event, snapshot.registration, snapshot)));
      if (!snapshot.registered) this.#toSeal.push(id);
    }
    this.#held.hold(held);
    this.#sealBeyondRecent();
  }

  /** Whether this node holds the whole history of `id` (always, unless the log serves histories). */
  #holds(id: string): boolean {
    return this.#remote?.holds(id) ?? true;
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
