import type { InstanceEvent } from './types.js';

/**
 * The newest events of every instance, at most `capacity`, in `seq` order: what a node whose
 * log serves histories itself (`RemoteHistories`) keeps of the instances whose history it does
 * not hold, so live streams can close a gap and resume from memory. `complete` is the seq after
 * which it holds every event applied.
 *
 * Each entry links to the previous one of its instance, so one instance's events are read without
 * a scan of the whole window (a scoped list looks up the registration of every instance it meets,
 * a maintenance window the status of every instance it covers), and nothing is allocated per
 * event. A dropped instance's events leave their seq in their place (a tombstone) until the ring
 * moves past them.
 */
export class RecentEvents {
  /** The ring; the entry added `n`-th since the last reset is at `n % capacity`. */
  readonly #ring: (InstanceEvent | number)[];
  /** For each slot, the position (`n`) of the previous event of the same instance, or -1. */
  readonly #previous: Float64Array;
  /** The position of the newest held event of each instance. */
  readonly #newest = new Map<string, number>();
  /** How many were added since the last reset: the position of the next. */
  #added = 0;
  /** How many entries are held (tombstones included). */
  #size = 0;
  #complete = 0;

  constructor(readonly capacity: number) {
    const slots = Math.max(1, capacity);
    this.#ring = new Array<InstanceEvent | number>(slots).fill(0);
    this.#previous = new Float64Array(slots);
  }

  /** Every event after this seq is held (until the next `add` pushes the oldest out). */
  get complete(): number {
    return this.#complete;
  }

  /** Starts over: nothing held, complete after `seq` (a load that ends there). */
  reset(seq: number): void {
    this.#ring.fill(0);
    this.#added = 0;
    this.#size = 0;
    this.#complete = seq;
    this.#newest.clear();
  }

  /** Adds an event newer than every one held, pushing the oldest out when full. */
  add(event: InstanceEvent): void {
    const ring = this.#ring;
    if (this.#size === ring.length) {
      const oldest = this.#oldest();
      const entry = ring[oldest % ring.length]!;
      if (typeof entry === 'number') {
        this.#complete = entry;
      } else {
        this.#complete = entry.seq;
        if (this.#newest.get(entry.instance) === oldest) this.#newest.delete(entry.instance);
      }
    } else {
      this.#size += 1;
    }
    const position = this.#added;
    this.#added += 1;
    const slot = position % ring.length;
    ring[slot] = event;
    this.#previous[slot] = this.#newest.get(event.instance) ?? -1;
    this.#newest.set(event.instance, position);
  }

  /** Held events after `seq`, oldest first. */
  since(seq: number): InstanceEvent[] {
    const result: InstanceEvent[] = [];
    for (let i = this.#firstAfter(seq); i < this.#size; i += 1) {
      const entry = this.#at(i);
      if (typeof entry !== 'number') result.push(entry);
    }
    return result;
  }

  /** Held events of one instance, oldest first. */
  ofInstance(id: string): InstanceEvent[] {
    const result: InstanceEvent[] = [];
    this.#eachOf(id, (event) => result.push(event));
    return result.reverse();
  }

  /** Forgets the events of one instance (its history was dropped). */
  drop(id: string): void {
    this.#eachOf(id, (event, slot) => {
      this.#ring[slot] = event.seq;
    });
    this.#newest.delete(id);
  }

  /** The held events of `id`, newest first, with their slots. */
  #eachOf(id: string, visit: (event: InstanceEvent, slot: number) => void): void {
    const oldest = this.#oldest();
    const slots = this.#ring.length;
    for (let position = this.#newest.get(id) ?? -1; position >= oldest; position = this.#previous[position % slots]!) {
      const slot = position % slots;
      visit(this.#ring[slot] as InstanceEvent, slot);
    }
  }

  /** The position of the oldest entry held. */
  #oldest(): number {
    return this.#added - this.#size;
  }

  #at(index: number): InstanceEvent | number {
    return this.#ring[(this.#oldest() + index) % this.#ring.length]!;
  }

  #firstAfter(seq: number): number {
    let low = 0;
    let high = this.#size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const entry = this.#at(mid);
      if ((typeof entry === 'number' ? entry : entry.seq) <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
