import { VigilError } from '../errors.js';
import type { InstanceEvent } from './types.js';

export type NewEvent = Omit<InstanceEvent, 'seq'>;

/**
 * The in-memory event log: one ordered list per instance plus one global list in append order.
 *
 * Bounded, unlike SBA's (SBA #5476, #5604, #3276): an instance keeps at most `maxPerInstance`
 * events. Past that, the oldest events are compacted away, except the newest of each kind (per
 * type, and per status value for STATUS_CHANGED), so every kind of fact stays explained.
 * Whole instances are dropped by the registry once their retention after deregistration ends.
 */
export class EventStore {
  readonly #byInstance = new Map<string, InstanceEvent[]>();
  /** Every held event in `seq` order; compacted events linger as tombstones until a rebuild. */
  #log: InstanceEvent[] = [];
  readonly #dead = new Set<InstanceEvent>();
  #nextSeq = 1;

  constructor(private readonly maxPerInstance: number) {}

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

  /** The `seq` of the newest event ever appended (0 before any). */
  get lastSeq(): number {
    return this.#nextSeq - 1;
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
      const kind = event.type === 'STATUS_CHANGED' ? `${event.type}:${event.statusInfo.status}` : event.type;
      if (!seenKinds.has(kind)) {
        seenKinds.add(kind);
        newestOfKind.add(event);
      }
    }
    let excess = list.length - this.maxPerInstance;
    const kept = list.filter((event) => {
      if (excess > 0 && !newestOfKind.has(event)) {
        excess -= 1;
        this.#dead.add(event);
        return false;
      }
      return true;
    });
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
