import type { AuditEntry } from './entry.js';

/** What `GET /audit` filters by; every given one must match. */
export interface AuditFilter {
  readonly actor?: string | undefined;
  readonly application?: string | undefined;
  readonly instance?: string | undefined;
  readonly action?: string | undefined;
  /** Only entries at or after this instant (ms since the epoch). */
  readonly since?: number | undefined;
}

export function matches(entry: AuditEntry, filter: AuditFilter): boolean {
  return (filter.actor === undefined || entry.actor.name === filter.actor)
    && (filter.application === undefined || entry.application === filter.application)
    && (filter.instance === undefined || entry.instance === filter.instance)
    && (filter.action === undefined || entry.action === filter.action)
    && (filter.since === undefined || Date.parse(entry.timestamp) >= filter.since);
}

/**
 * The newest `capacity` entries in this process, in id order: a ring, so memory stays bounded
 * however many actions are taken. Readers get newest first; streams get what follows an id.
 */
export class MemoryTrail {
  readonly #ring: (AuditEntry | undefined)[];
  #start = 0;
  #size = 0;

  constructor(private capacity: number) {
    this.#ring = new Array<AuditEntry | undefined>(capacity);
  }

  get size(): number {
    return this.#size;
  }

  /** The id of the newest entry held, 0 when none. */
  get lastId(): number {
    return this.#size === 0 ? 0 : this.#at(this.#size - 1).id;
  }

  /** Adds the newest entry (ids increase); the oldest goes when the ring is full. */
  add(entry: AuditEntry): void {
    if (this.#size < this.capacity) {
      this.#ring[(this.#start + this.#size) % this.capacity] = entry;
      this.#size += 1;
      return;
    }
    this.#ring[this.#start] = entry;
    this.#start = (this.#start + 1) % this.capacity;
  }

  /** Up to `limit` matching entries, newest first. */
  newest(filter: AuditFilter, limit: number): AuditEntry[] {
    const result: AuditEntry[] = [];
    for (let i = this.#size - 1; i >= 0 && result.length < limit; i -= 1) {
      // No early stop at `since`: in a cluster, nodes' clocks may put an older time after a newer one.
      const entry = this.#at(i);
      if (matches(entry, filter)) result.push(entry);
    }
    return result;
  }

  /** Matching entries after `id`, oldest first (a resumed stream's replay). */
  after(id: number, filter: AuditFilter): AuditEntry[] {
    const result: AuditEntry[] = [];
    for (let i = this.#size - 1; i >= 0; i -= 1) {
      const entry = this.#at(i);
      if (entry.id <= id) break;
      if (matches(entry, filter)) result.push(entry);
    }
    return result.reverse();
  }

  #at(index: number): AuditEntry {
    return this.#ring[(this.#start + index) % this.capacity]!;
  }
}
