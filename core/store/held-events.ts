import type { RetiredState } from './instance.js';
import { cameBack, HistorySealer, isRetired, openHistory, type PackedHistory, type RetiredHistory, type SealedHistory } from './sealed-history.js';
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
 *
 * The history of an instance that left can be sealed (`seal`): held as one compressed string
 * (`SealedHistory`) outside both lists, with how the instance left, until it is dropped or comes
 * back. Events that come after it are held as usual, the sealed part staying sealed before them.
 */
export class HeldEvents {
  readonly #byInstance = new Map<string, InstanceEvent[]>();
  /** Sealed histories, packed (`#view` reads one). */
  readonly #sealed = new Map<string, PackedHistory>();
  readonly #sealer = new HistorySealer();
  #sealedCount = 0;
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
    // (`[...list, event]`) keeps spare room, held for every instance (bench/REPORT.md, memory per instance).
    const id = event.instance;
    const list = this.#byInstance.get(id);
    const held = list ? list.concat([event]) : [event];
    this.#byInstance.set(id, held);
    this.#log.push(event);
    let sealed = this.#view(id);
    if (isRetired(sealed)) this.#sealed.set(id, (sealed = cameBack(sealed)).packed);
    if (held.length + (sealed?.count ?? 0) > this.maxPerInstance) this.#compact(id, held);
  }

  /**
   * Holds the whole histories of instances none of whose events are held yet (a cluster node
   * that came to check them), each oldest first and older than events held of others: compacted
   * as `add` would have, one event at a time, and merged into the global list once for them all.
   */
  hold(histories: ReadonlyMap<string, readonly InstanceEvent[]>): void {
    const added: InstanceEvent[] = [];
    for (const [id, events] of histories) {
      if (events.length === 0 || this.#byInstance.has(id) || this.#sealed.has(id)) continue;
      let kept: InstanceEvent[] = [];
      for (const event of events) {
        kept.push(event);
        if (kept.length > this.maxPerInstance) kept = compactHistory(kept, this.maxPerInstance);
      }
      // An array of exactly the events held, as `add` keeps them.
      this.#byInstance.set(id, kept.slice());
      for (const event of kept) added.push(event);
    }
    if (added.length === 0) return;
    added.sort((a, b) => a.seq - b.seq);
    this.#log = mergeEntries(this.#log, added);
  }

  /**
   * Seals the history of `id`, whose instance left as `retired` says: its events leave the
   * lists for one compressed string. Returns false when nothing of it is held.
   */
  seal(id: string, retired: RetiredState): boolean {
    const list = this.#byInstance.get(id);
    const sealed = this.#view(id);
    if (!list && !sealed) return false;
    const events = sealed ? openHistory(sealed).concat(list ?? []) : list!;
    this.#forgetList(id);
    this.#reseal(id, sealed, events, retired);
    return true;
  }

  /** The sealed history of `id` if its instance left and has not come back (`retiredDetails` reads how it left). */
  retired(id: string): RetiredHistory | undefined {
    const sealed = this.#view(id);
    return isRetired(sealed) ? sealed : undefined;
  }

  /** The held events of one instance, oldest first. */
  ofInstance(id: string): readonly InstanceEvent[] {
    const list = this.#byInstance.get(id) ?? [];
    const sealed = this.#view(id);
    return sealed ? openHistory(sealed).concat(list) : list;
  }

  /** Every held event, in `seq` order. */
  all(): InstanceEvent[] {
    // `slice` allocates the copy once at its size; `filter` grows it step by step, and at
    // millions of events the steps are tens of MB of large objects only a full GC frees.
    const listed = this.#tombstones === 0 ? this.#log.slice() as InstanceEvent[] : this.#log.filter(isEvent);
    return this.#sealed.size === 0 ? listed : mergeBySeq(listed, this.#sealedSince(Number.NEGATIVE_INFINITY));
  }

  /** Held events after `seq`, oldest first. */
  since(seq: number): InstanceEvent[] {
    const after = this.#log.slice(this.#firstAfter(seq));
    const listed = this.#tombstones === 0 ? after as InstanceEvent[] : after.filter(isEvent);
    return this.#sealed.size === 0 ? listed : mergeBySeq(listed, this.#sealedSince(seq));
  }

  /** How many events are held. */
  get size(): number {
    return this.#log.length - this.#tombstones + this.#sealedCount;
  }

  /** Forgets every event of one instance. */
  drop(id: string): void {
    this.#forgetList(id);
    this.#reseal(id, this.#view(id), [], null);
  }

  /** Forgets everything (the log reloaded). */
  clear(): void {
    this.#byInstance.clear();
    this.#sealed.clear();
    this.#sealedCount = 0;
    this.#log = [];
    this.#tombstones = 0;
  }

  #view(id: string): SealedHistory | undefined {
    const packed = this.#sealed.get(id);
    return packed === undefined ? undefined : this.#sealer.view(packed);
  }

  /** Compacts the history of `id` (its sealed part and `list`) down to the limit. */
  #compact(id: string, list: readonly InstanceEvent[]): void {
    const sealed = this.#view(id);
    const older = sealed ? openHistory(sealed) : [];
    const kept = compactHistory(older.concat(list), this.maxPerInstance, (gone) => this.#bury(gone));
    const keptOlder = sealed ? kept.filter((event) => event.seq <= sealed.lastSeq) : [];
    if (sealed && keptOlder.length !== sealed.count) this.#reseal(id, sealed, keptOlder, null);
    this.#byInstance.set(id, kept.slice(keptOlder.length));
    this.#collectTombstones();
  }

  /** Replaces the sealed part of `id` (`previous`) by `events`, sealed with `retired`; none when empty. */
  #reseal(id: string, previous: SealedHistory | undefined, events: readonly InstanceEvent[], retired: RetiredState | null): void {
    if (previous) this.#sealedCount -= previous.count;
    if (events.length === 0) {
      this.#sealed.delete(id);
      return;
    }
    const sealed = this.#sealer.seal(events, retired);
    this.#sealed.set(id, sealed.packed);
    this.#sealedCount += sealed.count;
  }

  /** Removes the listed events of `id` from both lists. */
  #forgetList(id: string): void {
    const list = this.#byInstance.get(id);
    if (!list) return;
    this.#byInstance.delete(id);
    for (const event of list) this.#bury(event);
    this.#collectTombstones();
  }

  /** Sealed events after `seq`, in `seq` order: a sealed history is read only if it has any. */
  #sealedSince(seq: number): InstanceEvent[] {
    const events: InstanceEvent[] = [];
    for (const packed of this.#sealed.values()) {
      const sealed = this.#sealer.view(packed);
      if (sealed.lastSeq <= seq) continue;
      for (const event of openHistory(sealed)) if (event.seq > seq) events.push(event);
    }
    return events.sort((a, b) => a.seq - b.seq);
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

/** One list in `seq` order from two. */
function mergeBySeq(a: readonly InstanceEvent[], b: readonly InstanceEvent[]): InstanceEvent[] {
  if (b.length === 0) return a as InstanceEvent[];
  const merged = new Array<InstanceEvent>(a.length + b.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < merged.length; k += 1) merged[k] = j >= b.length || (i < a.length && a[i]!.seq < b[j]!.seq) ? a[i++]! : b[j++]!;
  return merged;
}

/** The global list (events and tombstones) with `events` (in `seq` order) merged in, in `seq` order. */
function mergeEntries(log: readonly (InstanceEvent | number)[], events: readonly InstanceEvent[]): (InstanceEvent | number)[] {
  const merged = new Array<InstanceEvent | number>(log.length + events.length);
  let i = 0;
  let j = 0;
  for (let k = 0; k < merged.length; k += 1) merged[k] = j >= events.length || (i < log.length && seqOf(log[i]!) < events[j]!.seq) ? log[i++]! : events[j++]!;
  return merged;
}

function isEvent(entry: InstanceEvent | number): entry is InstanceEvent {
  return typeof entry !== 'number';
}

function seqOf(entry: InstanceEvent | number): number {
  return typeof entry === 'number' ? entry : entry.seq;
}
