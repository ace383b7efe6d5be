import { VersionConflictError, type EventLog, type LogReceiver, type NewEvent } from '../contract/event-log.js';
import { storedEvent } from './event-shape.js';
import { runSeqBase } from './seq-base.js';
import type { InstanceEvent } from './types.js';

/**
 * The default event log: this process only, nothing kept across restarts. It numbers events
 * (from the start time, so ids never repeat across runs), checks versions (optimistic locking,
 * as SBA's in-memory event store) and delivers each event to the registry before `append`
 * returns, so in a single process a write is visible at once and no writer ever loses a race.
 */
export class MemoryEventLog implements EventLog {
  readonly #versions = new Map<string, number>();
  #receiver: LogReceiver | undefined;
  #nextSeq: number;

  constructor(firstSeq: number = runSeqBase()) {
    this.#nextSeq = firstSeq;
  }

  async open(receiver: LogReceiver): Promise<void> {
    this.#receiver = receiver;
    receiver.load([], [], { first: this.#nextSeq, last: this.#nextSeq - 1 });
  }

  async append(event: NewEvent): Promise<InstanceEvent> {
    const last = this.#versions.get(event.instance) ?? -1;
    if (event.version <= last) throw new VersionConflictError(event.instance, last);
    this.#versions.set(event.instance, event.version);
    const stored = storedEvent(event, this.#nextSeq++);
    this.#receiver?.event(stored);
    return stored;
  }

  async drop(id: string): Promise<void> {
    this.#versions.delete(id);
    this.#receiver?.dropped(id);
  }

  async close(): Promise<void> {
    this.#receiver = undefined;
  }
}
