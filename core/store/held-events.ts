import { KNOWN_STATUSES, type InstanceEvent } from './types.js';

/** Status kinds compaction spares one of each: the known statuses; every other string shares one kind. */
const KNOWN_STATUS_KINDS: ReadonlySet<string> = new Set(KNOWN_STATUSES);

/**
 * The kernel's compaction rule, for every event log (each must hold the same events): while an
 * instance holds more than `max` events, the oldest go, sparing the newest of each kind (per
 * type, and per known status value for STATUS_CHANGED) so every kind of fact stays explained;
 * if those alone are too many, the oldest of them go too: the cap is hard, whatever an instance
 * reports. Returns the events kept, in order, and calls `dropped` for each one that goes.
 */
export function compactHistory(list: readonly InstanceEvent[], max: number, dropped: (event: InstanceEvent) => void = () => undefined): InstanceEvent[] {
  if (list.length <= max) return [...list];
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
  let excess = list.length - max;
  const dropOldest = (from: readonly InstanceEvent[], spare: (event: InstanceEvent) => boolean) => from.filter((event) => {
    if (excess > 0 && !spare(event)) {
      excess -= 1;
      dropped(event);
      return false;
    }
    return true;
  });
  const kept = dropOldest(list, (event) => newestOfKind.has(event));
  return excess > 0 ? dropOldest(kept, () => false) : kept;
}

/** The kind compaction spares one of: the type, and for a known status its value. */
export function compactionKind(event: InstanceEvent): string {
  if (event.type !== 'STATUS_CHANGED') return event.type;
  return KNOWN_STATUS_KINDS.has(event.statusInfo.status) ? `STATUS_CHANGED:${event.statusInfo.status}` : 'STATUS_CHANGED:*';
}

/**
 * The events a node holds: one ordered list per instance plus one global list in `seq` order,
 * bounded by `compactHistory` (unlike SBA's, SBA #5476, #5604, #3276). Events arrive from the
 * event log, numbered; whole instances leave when the log drops them (retention).
 */
export class HeldEvents {
  readonly #byInstance = new Map<string, InstanceEvent[]>();
  /** Every held event in `seq` order; compacted events linger as tombstones until a rebuild. */
  #log: InstanceEvent[] = [];
  readonly #dead = new Set<InstanceEvent>();

  constructor(private readonly maxPerInstance: number) {}

  /** Adds one event, newer (by `seq`) than every event held. */
  add(event: InstanceEvent): void {
    // A new array of exactly the events held, not a push: a pushed-to array keeps room for ~16
    // more, ~100 bytes per instance when most instances hold four or five events.
    const list = this.#byInstance.get(event.instance);
    const held = list ? [...list, event] : [event];
    this.#byInstance.set(event.instance, held);
    this.#log.push(event);
    if (held.length > this.maxPerInstance) {
      const kept = compactHistory(held, this.maxPerInstance, (gone) => this.#dead.add(gone));
      this.#byInstance.set(event.instance, kept.slice());
      this.#collectTombstones();
    }
  }

  /** The held events of one instance, oldest first. */
  ofInstance(id: string): readonly InstanceEvent[] {
    return this.#byInstance.get(id) ?? [];
  }

  /** Every held event, in `seq` order. */
  all(): InstanceEvent[] {
    return this.#dead.size === 0 ? [...this.#log] : this.#log.filter((event) => !this.#dead.has(event));
  }

  /** Held events after `seq`, oldest first. */
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

  /** Forgets everything (the log reloaded). */
  clear(): void {
    this.#byInstance.clear();
    this.#log = [];
    this.#dead.clear();
  }

  /** Rebuilds the global list once tombstones make up half of it, keeping `since` cheap. */
  #collectTombstones(): void {
    if (this.#dead.size * 2 < this.#log.length) return;
    this.#log = this.#log.filter((event) => !this.#dead.has(event));
    this.#dead.clear();
  }
}
