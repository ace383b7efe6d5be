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
  /**
   * Every held event in `seq` order. A dropped event leaves its `seq` in its place (a tombstone)
   * until a rebuild: the event itself, and what it holds, can go at once (churn drops whole
   * histories all day long, and those would otherwise stay until half the list was tombstones).
   */
  #log: (InstanceEvent | number)[] = [];
  #tombstones = 0;

  constructor(private readonly maxPerInstance: number) {}

  /** Adds one event, newer (by `seq`) than every event held. */
  add(event: InstanceEvent): void {
    // A new array of exactly the events held: `concat` allocates that, where a push or a spread
    // (`[...list, event]`) keeps room for ~16 more, ~140 bytes per instance.
    const list = this.#byInstance.get(event.instance);
    const held = list ? list.concat([event]) : [event];
    this.#byInstance.set(event.instance, held);
    this.#log.push(event);
    if (held.length > this.maxPerInstance) {
      const kept = compactHistory(held, this.maxPerInstance, (gone) => this.#bury(gone));
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
    // `slice` allocates the copy once at its size; `filter` grows it step by step, and at
    // millions of events the steps are tens of MB of large objects only a full GC frees.
    return this.#tombstones === 0 ? this.#log.slice() as InstanceEvent[] : this.#log.filter(isEvent);
  }

  /** Held events after `seq`, oldest first. */
  since(seq: number): InstanceEvent[] {
    const after = this.#log.slice(this.#firstAfter(seq));
    return this.#tombstones === 0 ? after as InstanceEvent[] : after.filter(isEvent);
  }

  /** How many events are held. */
  get size(): number {
    return this.#log.length - this.#tombstones;
  }

  /** Forgets every event of one instance. */
  drop(id: string): void {
    const list = this.#byInstance.get(id);
    if (!list) return;
    this.#byInstance.delete(id);
    for (const event of list) this.#bury(event);
    this.#collectTombstones();
  }

  /** Forgets everything (the log reloaded). */
  clear(): void {
    this.#byInstance.clear();
    this.#log = [];
    this.#tombstones = 0;
  }

  /** Rebuilds the global list once tombstones make up half of it, keeping `since` cheap. */
  #collectTombstones(): void {
    if (this.#tombstones * 2 < this.#log.length) return;
    this.#log = this.#log.filter(isEvent);
    this.#tombstones = 0;
  }

  /** Leaves the event's `seq` in its place in the global list. */
  #bury(event: InstanceEvent): void {
    const index = this.#firstAfter(event.seq) - 1;
    if (index < 0 || this.#log[index] !== event) return;
    this.#log[index] = event.seq;
    this.#tombstones += 1;
  }

  /** The index of the first entry (event or tombstone) after `seq`. */
  #firstAfter(seq: number): number {
    let low = 0;
    let high = this.#log.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (seqOf(this.#log[mid]!) <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}

function isEvent(entry: InstanceEvent | number): entry is InstanceEvent {
  return typeof entry !== 'number';
}

function seqOf(entry: InstanceEvent | number): number {
  return typeof entry === 'number' ? entry : entry.seq;
}
