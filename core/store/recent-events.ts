import type { InstanceEvent } from './types.js';

/**
 * The newest events of every instance, at most `capacity`, in `seq` order: what a node whose
 * log serves histories itself (`RemoteHistories`) keeps of the instances whose history it does
 * not hold, so live streams can close a gap and resume from memory. `complete` is the seq after
 * which it holds every event applied.
 */
export class RecentEvents {
  /** A ring: `#start` is the oldest entry, `#size` how many are held. */
  readonly #ring: (InstanceEvent | undefined)[];
  #start = 0;
  #size = 0;
  #complete = 0;

  constructor(readonly capacity: number) {
    this.#ring = new Array<InstanceEvent | undefined>(Math.max(1, capacity));
  }

  /** Every event after this seq is held (until the next `add` pushes the oldest out). */
  get complete(): number {
    return this.#complete;
  }

  /** Starts over: nothing held, complete after `seq` (a load that ends there). */
  reset(seq: number): void {
    this.#ring.fill(undefined);
    this.#start = 0;
    this.#size = 0;
    this.#complete = seq;
  }

  /** Adds an event newer than every one held, pushing the oldest out when full. */
  add(event: InstanceEvent): void {
    const ring = this.#ring;
    if (this.#size < ring.length) {
      ring[(this.#start + this.#size) % ring.length] = event;
      this.#size += 1;
      return;
    }
    this.#complete = ring[this.#start]!.seq;
    ring[this.#start] = event;
    this.#start = (this.#start + 1) % ring.length;
  }

  /** Held events after `seq`, oldest first. */
  since(seq: number): InstanceEvent[] {
    const result: InstanceEvent[] = [];
    for (let i = this.#firstAfter(seq); i < this.#size; i += 1) result.push(this.#at(i));
    return result;
  }

  /** Held events of one instance, oldest first. */
  ofInstance(id: string): InstanceEvent[] {
    const result: InstanceEvent[] = [];
    for (let i = 0; i < this.#size; i += 1) {
      const event = this.#at(i);
      if (event.instance === id) result.push(event);
    }
    return result;
  }

  /** Forgets the events of one instance (its history was dropped). */
  drop(id: string): void {
    const kept = this.since(Number.NEGATIVE_INFINITY).filter((event) => event.instance !== id);
    if (kept.length === this.#size) return;
    const complete = this.#complete;
    this.reset(complete);
    for (const event of kept) this.add(event);
  }

  #at(index: number): InstanceEvent {
    return this.#ring[(this.#start + index) % this.#ring.length]!;
  }

  #firstAfter(seq: number): number {
    let low = 0;
    let high = this.#size;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (this.#at(mid).seq <= seq) low = mid + 1;
      else high = mid;
    }
    return low;
  }
}
