import type { EventBus } from '../bus.js';
import { VigilError } from '../errors.js';
import { toApplication } from './application.js';
import { boundDraft, repeatsCurrent } from './bounds.js';
import { deregisterCommand, registerCommand, type Command } from './commands.js';
import type { EventStore } from './event-store.js';
import { instanceIdOf } from './instance-id.js';
import { applyEvent, emptyInstance } from './instance.js';
import type { Application, Instance, InstanceEvent, Registration } from './types.js';

/** Re-runs of a command after a lost optimistic-locking race, as SBA's repository allows. */
const MAX_ATTEMPTS = 10;

export interface RegistryOptions {
  /** How long a deregistered instance's events stay before they are dropped (ms). */
  readonly retentionAfterDeregistration: number;
  /** Largest status details or info an event may carry, in bytes of JSON; larger ones are cut. */
  readonly maxDetailsBytes: number;
  /** Clock, replaceable in tests. */
  readonly now?: () => number;
}

/**
 * The instance registry: snapshots derived from the event store, updated synchronously after
 * every append (so a read right after a write sees it), and the one way to change an instance.
 * Every recorded event is published on the bus as `instance.changed`.
 */
export class InstanceRegistry {
  readonly #snapshots = new Map<string, Instance>();
  readonly #removals = new Map<string, NodeJS.Timeout>();
  readonly #now: () => number;
  #lastTimestamp = 0;

  constructor(
    private readonly store: EventStore,
    private readonly bus: EventBus,
    private readonly options: RegistryOptions,
  ) {
    this.#now = options.now ?? Date.now;
  }

  /** Registers or re-registers; records REGISTERED, REGISTRATION_UPDATED, or nothing for an equal heartbeat. */
  register(registration: Registration): { id: string; event: InstanceEvent | null } {
    const id = instanceIdOf(registration.healthUrl);
    return { id, event: this.apply(id, registerCommand(registration)) };
  }

  /** Records DEREGISTERED. Returns false for an id never seen (or already dropped). */
  deregister(id: string): boolean {
    if (!this.#snapshots.has(id)) return false;
    this.apply(id, deregisterCommand);
    return true;
  }

  /**
   * Runs a command against the latest snapshot and appends the event it decides on. If another
   * writer got in first, the command is re-run against the newer version.
   */
  apply(id: string, command: Command): InstanceEvent | null {
    for (let attempt = 1; ; attempt += 1) {
      const previous = this.#snapshots.get(id) ?? emptyInstance(id);
      const decided = command(previous);
      if (!decided) return null;
      const draft = boundDraft(decided, this.options.maxDetailsBytes);
      if (draft !== decided && repeatsCurrent(draft, previous)) return null;
      try {
        const event = this.store.append({ ...draft, instance: id, version: previous.version + 1, timestamp: this.#timestamp() });
        const instance = applyEvent(previous, event);
        this.#snapshots.set(id, instance);
        this.#scheduleRetention(instance);
        this.bus.emit('instance.changed', { event, instance, previous });
        return event;
      } catch (error) {
        if (!(error instanceof VigilError && error.code === 'ERR_VERSION_CONFLICT') || attempt >= MAX_ATTEMPTS) throw error;
      }
    }
  }

  /** An instance by id, registered or not, while its history is held. */
  get(id: string): Instance | undefined {
    return this.#snapshots.get(id);
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

  /** Every held event in the order recorded. */
  events(): InstanceEvent[] {
    return this.store.all();
  }

  eventsOf(id: string): readonly InstanceEvent[] {
    return this.store.ofInstance(id);
  }

  /** Held events recorded after `seq` (an event's `seq`, the SSE id), oldest first. */
  eventsSince(seq: number): InstanceEvent[] {
    return this.store.since(seq);
  }

  get lastSeq(): number {
    return this.store.lastSeq;
  }

  /** Where a stream resumes after a client's `Last-Event-ID` (0: replay everything held). */
  resumePoint(lastEventId: number): number {
    return this.store.resumePoint(lastEventId);
  }

  /** Cancels pending retention timers; the registry is unusable for retention afterwards. */
  dispose(): void {
    for (const timer of this.#removals.values()) clearTimeout(timer);
    this.#removals.clear();
  }

  /** ISO timestamps that never go backwards, so the history stays ordered by time too. */
  #timestamp(): string {
    this.#lastTimestamp = Math.max(this.#now(), this.#lastTimestamp);
    return new Date(this.#lastTimestamp).toISOString();
  }

  /** A deregistered instance is forgotten after the retention; re-registering cancels that. */
  #scheduleRetention(instance: Instance): void {
    const pending = this.#removals.get(instance.id);
    if (pending) {
      clearTimeout(pending);
      this.#removals.delete(instance.id);
    }
    if (instance.registered) return;
    const timer = setTimeout(() => {
      this.#removals.delete(instance.id);
      this.#snapshots.delete(instance.id);
      this.store.drop(instance.id);
    }, this.options.retentionAfterDeregistration);
    timer.unref();
    this.#removals.set(instance.id, timer);
  }
}
