import type { WireEvent } from 'vigil/domain';

export interface JournalEntry {
  /** `instance:version`: unique per event, the same in the list and on the stream. */
  readonly key: string;
  readonly event: WireEvent;
}

/** Beyond this the oldest entries are dropped: the server keeps its own bounded history anyway. */
const MAX_ENTRIES = 50_000;

/**
 * The event journal: every event seen on the stream since the page opened, merged with the held
 * history (GET /instances/events) once the journal is first shown. Oldest first.
 */
export class Journal {
  #entries: JournalEntry[] = [];
  #keys = new Set<string>();
  /** Application name of every instance whose registration the journal has seen. */
  readonly #names = new Map<string, string>();
  /** `partial`: live events only; `complete`: merged with the held history. */
  state: 'partial' | 'loading' | 'complete' | 'failed' = 'partial';
  error: string | null = null;
  /** Increases on every change. */
  version = 0;

  get entries(): readonly JournalEntry[] {
    return this.#entries;
  }

  /**
   * The application name of an instance, from its registration events: the live store forgets an
   * instance that deregistered before the page opened, but its history still names it.
   */
  nameOf(id: string): string | undefined {
    return this.#names.get(id);
  }

  add(event: WireEvent): void {
    const key = `${event.instance}:${event.version}`;
    if (this.#keys.has(key)) return;
    this.#keys.add(key);
    this.#entries.push({ key, event });
    this.#noteName(event);
    if (this.#entries.length > MAX_ENTRIES) this.#trim();
    this.version += 1;
  }

  /** Puts the held history before the live events; an event in both is kept once. Ordered by time. */
  merge(history: readonly WireEvent[]): void {
    const merged: JournalEntry[] = [];
    const keys = new Set<string>();
    for (const event of history) {
      const key = `${event.instance}:${event.version}`;
      if (keys.has(key)) continue;
      keys.add(key);
      merged.push({ key, event });
      this.#noteName(event);
    }
    for (const entry of this.#entries) if (!keys.has(entry.key)) merged.push(entry);
    // Stable: events of one instant keep the server's order.
    merged.sort((a, b) => (a.event.timestamp < b.event.timestamp ? -1 : a.event.timestamp > b.event.timestamp ? 1 : 0));
    this.#entries = merged;
    this.#keys = new Set(merged.map((entry) => entry.key));
    if (merged.length > MAX_ENTRIES) this.#trim();
    this.state = 'complete';
    this.version += 1;
  }

  fail(message: string): void {
    this.state = 'failed';
    this.error = `the event history could not be loaded: ${message}`;
    this.version += 1;
  }

  /** Forgets everything (the server restarted); the history is loaded again when next shown. */
  reset(): void {
    this.#entries = [];
    this.#keys.clear();
    this.#names.clear();
    this.state = 'partial';
    this.error = null;
    this.version += 1;
  }

  #noteName(event: WireEvent): void {
    if (event.type === 'REGISTERED' || event.type === 'REGISTRATION_UPDATED') this.#names.set(event.instance, event.registration.name);
  }

  #trim(): void {
    // Dropping a tenth at once keeps trimming rare while events stream in.
    const dropped = this.#entries.splice(0, this.#entries.length - MAX_ENTRIES + MAX_ENTRIES / 10);
    for (const entry of dropped) this.#keys.delete(entry.key);
    // Names are kept only for instances the journal still lists, so churn cannot grow them forever.
    const listed = new Set(this.#entries.map((entry) => entry.event.instance));
    for (const id of this.#names.keys()) if (!listed.has(id)) this.#names.delete(id);
  }
}

