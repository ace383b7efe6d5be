import { VigilError } from '../errors.js';
import { KNOWN_STATUSES, type InstanceEvent } from './types.js';

export type NewEvent = Omit<InstanceEvent, 'seq'>;

/**
 * The first `seq` of a log started now: the start time in microseconds. Stream ids are these
 * seqs, and a client resuming with an id from an earlier run of the daemon must never have it
 * taken for an id of this run (it would silently skip events). Starting each run above every id
 * an earlier run could have issued (it would have needed more than a thousand events per
 * millisecond of its life to get here) keeps ids decimal and increasing across restarts, and
 * stays far below 2^53 for millennia.
 */
export function runSeqBase(now: number = Date.now()): number {
  return now * 1000;
}

/** Status kinds compaction keeps one of each: the known statuses; every other string shares one kind. */
const KNOWN_STATUS_KINDS: ReadonlySet<string> = new Set(KNOWN_STATUSES);

/**
 * The in-memory event log: one ordered list per instance plus one global list in append order.
 *
 * Bounded, unlike SBA's (SBA #5476, #5604, #3276): an instance keeps at most `maxPerInstance`
 * events, whatever it reports. Past that, the oldest events are compacted away, sparing the
 * newest of each kind (per type, and per known status value for STATUS_CHANGED) so every kind of
 * fact stays explained, and then, if that is still too many, the oldest of those too: the cap is
 * hard. Whole instances are dropped by the registry once their retention after deregistration ends.
 */
export class EventStore {
  readonly #byInstance = new Map<string, InstanceEvent[]>();
  /** Every held event in `seq` order; compacted events linger as tombstones until a rebuild. */
  #log: InstanceEvent[] = [];
  readonly #dead = new Set<InstanceEvent>();
  readonly #firstSeq: number;
  #nextSeq: number;

  /** `firstSeq`: the seq of this log's first event (`runSeqBase()` for a daemon, 1 in unit tests). */
  constructor(private readonly maxPerInstance: number, firstSeq = 1) {
    this.#firstSeq = firstSeq;
    this.#nextSeq = firstSeq;
  }

  /**
   * Appends one event. Its version must be newer than the instance's last one: two writers that
   * read the same version cannot both append (optimistic locking, as SBA's event store).
   */
  append(event: NewEvent): InstanceEvent {
    const list = this.#byInstance.get(event.instance) ?? [];
    const last = list.at(-1)?.version ?? -1;
    if (event.version <= last) {
      throw new VigilError('ERR_VERSION_CONFLICT', `instance ${event.instance}: version ${event.version} is not newer than ${last}`);
    }
    const stored = Object.freeze({ ...event, seq: this.#nextSeq++ }) as InstanceEvent;
    list.push(stored);
    this.#byInstance.set(event.instance, list);
    this.#log.push(stored);
    if (list.length > this.maxPerInstance) this.#compact(list);
    return stored;
  }

  /** The held events of one instance, oldest first. */
  ofInstance(id: string): readonly InstanceEvent[] {
    return this.#byInstance.get(id) ?? [];
  }

  /** Every held event, in the order they were appended. */
  all(): InstanceEvent[] {
    return this.#dead.size === 0 ? [...this.#log] : this.#log.filter((event) => !this.#dead.has(event));
  }

  /** Held events appended after `seq`, oldest first. */
  since(seq: number): InstanceEvent[] {
    let low = 0;
    let high = this.#log.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#log[mid]!.seq <= seq) low = mid + 1;
      else high = mid;
    }
    return this.#log.slice(low).filter((event) => !this.#dead.has(event));
  }

  /** The `seq` of the newest event ever appended (`firstSeq - 1` before any). */
  get lastSeq(): number {
    return this.#nextSeq - 1;
  }

  /**
   * Where a stream resumes for a client's `Last-Event-ID`: the id itself when this log issued it,
   * else 0 (everything held). An id outside this log's range comes from an earlier run of the
   * daemon (or another store), and all of this run's events are new to that client.
   */
  resumePoint(lastEventId: number): number {
    return lastEventId >= this.#firstSeq - 1 && lastEventId <= this.lastSeq ? lastEventId : 0;
  }

  /** How many events are held. */
  get size(): number {
    return this.#log.length - this.#dead.size;
  }

  /** Forgets every event of one instance. */
  drop(id: string): void {
    const list = this.#byInstance.get(id);
    if (!list) return;
    this.#byInstance.delete(id);
    for (const event of list) this.#dead.add(event);
    this.#collectTombstones();
  }

  #compact(list: InstanceEvent[]): void {
    const newestOfKind = new Set<InstanceEvent>();
    const seenKinds = new Set<string>();
    for (let i = list.length - 1; i >= 0; i -= 1) {
      const event = list[i]!;
      const kind = compactionKind(event);
      if (!seenKinds.has(kind)) {
        seenKinds.add(kind);
        newestOfKind.add(event);
      }
    }
    let excess = list.length - this.maxPerInstance;
    const dropOldest = (from: InstanceEvent[], spare: (event: InstanceEvent) => boolean) => from.filter((event) => {
      if (excess > 0 && !spare(event)) {
        excess -= 1;
        this.#dead.add(event);
        return false;
      }
      return true;
    });
    // The newest of each kind are spared first; if they alone are too many, the oldest go too.
    let kept = dropOldest(list, (event) => newestOfKind.has(event));
    if (excess > 0) kept = dropOldest(kept, () => false);
    list.splice(0, list.length, ...kept);
    this.#collectTombstones();
  }

  /** Rebuilds the global list once tombstones make up half of it, keeping `since` cheap. */
  #collectTombstones(): void {
    if (this.#dead.size * 2 < this.#log.length) return;
    this.#log = this.#log.filter((event) => !this.#dead.has(event));
    this.#dead.clear();
  }
}

/** The kind compaction spares one of: the type, and for a known status its value. */
function compactionKind(event: InstanceEvent): string {
  if (event.type !== 'STATUS_CHANGED') return event.type;
  return KNOWN_STATUS_KINDS.has(event.statusInfo.status) ? `STATUS_CHANGED:${event.statusInfo.status}` : 'STATUS_CHANGED:*';
}
