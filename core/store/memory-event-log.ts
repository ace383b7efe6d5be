import { VersionConflictError, type EventLog, type InstanceTransition, type LogReceiver, type NewEvent } from '../contract/event-log.js';
import { storedEvent } from './event-shape.js';
import { runSeqBase } from './seq-base.js';
import type { InstanceEvent } from './types.js';

/**
 * The default event log: this process only, nothing kept across restarts. It numbers events
 * (from the start time, so ids never repeat across runs), checks versions (optimistic locking,
 * as SBA's in-memory event store) and delivers each event to the registry before `append`
 * returns, with the transition it was handed (the registry holds that, folding nothing again),
 * so in a single process a write is visible at once and no writer ever loses a race.
 * It keeps at most `maxDeregistered` deregistered histories (`event-store.max-deregistered-instances`):
 * each DEREGISTERED beyond that drops the one deregistered longest ago.
 */
export class MemoryEventLog implements EventLog {
  /** The last version of each instance held, but for those deregistered: each id is in one map only. */
  readonly #versions = new Map<string, number>();
  /** The last version of each deregistered instance, oldest deregistration first (a Map keeps insertion order). */
  readonly #deregistered = new Map<string, number>();
  #receiver: LogReceiver | undefined;
  #nextSeq: number;

  constructor(firstSeq: number = runSeqBase(), private readonly maxDeregistered = Number.POSITIVE_INFINITY) {
    this.#nextSeq = firstSeq;
  }

  async open(receiver: LogReceiver): Promise<void> {
    this.#receiver = receiver;
    receiver.load([], [], { first: this.#nextSeq, last: this.#nextSeq - 1 });
  }

  async append(event: NewEvent, change?: InstanceTransition): Promise<InstanceEvent> {
    const id = event.instance;
    const live = this.#versions.get(id);
    const gone = live === undefined ? this.#deregistered.get(id) : undefined;
    const last = live ?? gone ?? -1;
    if (event.version <= last) throw new VersionConflictError(id, last);
    if (event.type === 'DEREGISTERED') {
      this.#versions.delete(id);
      this.#deregistered.delete(id);
      this.#deregistered.set(id, event.version);
    } else if (gone !== undefined && event.type !== 'REGISTERED') {
      this.#deregistered.set(id, event.version);
    } else {
      this.#deregistered.delete(id);
      this.#versions.set(id, event.version);
    }
    const stored = storedEvent(event, this.#nextSeq++);
    this.#receiver?.event(stored, change);
    if (event.type === 'DEREGISTERED') this.#trim();
    return stored;
  }

  async drop(id: string): Promise<void> {
    this.#forget(id);
  }

  async close(): Promise<void> {
    this.#receiver = undefined;
  }

  /** Drops the oldest deregistrations beyond the cap: O(1) per deregistration. */
  #trim(): void {
    while (this.#deregistered.size > this.maxDeregistered) this.#forget(this.#deregistered.keys().next().value as string);
  }

  #forget(id: string): void {
    this.#versions.delete(id);
    this.#deregistered.delete(id);
    this.#receiver?.dropped(id);
  }
}
