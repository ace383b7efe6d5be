import { apiUrl, checkSignedIn, getJson, messageOf } from '../api';
import {
  applyEvent, emptyInstance, toApplication,
  type Application, type Instance, type InstanceEvent, type WireApplication, type WireEvent,
} from 'vigil/domain';
import { Journal } from './journal';

export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';

/** After the server refused the stream outright (an HTTP error, not a dropped connection). */
const RETRY_MS = 5000;

/**
 * Everything the dashboard shows, kept live from one event stream per tab.
 *
 * Start-up: open `/instances/events` first, then load GET /applications once; events that arrive
 * meanwhile are held and applied after the list, skipping those the list already contains (an
 * event's per-instance `version` tells). After that, every event is applied as it comes, in
 * batches of one animation frame, so a burst of thousands of events costs one render.
 *
 * A dropped stream resumes by itself: EventSource reconnects with `Last-Event-ID`, and the server
 * replays what was missed. When the numbering goes backwards, or an event is not newer than what
 * is held, the server has restarted: the list is loaded again instead of mixing two histories.
 * So it is when the stream dropped before any event came: there is no id to resume from.
 */
export class LiveStore {
  readonly #instances = new Map<string, Instance>();
  /** Application name → ids of its registered instances. */
  readonly #members = new Map<string, Set<string>>();
  readonly #applications = new Map<string, Application>();
  /** Last known application name of every id seen, kept after deregistration for the journal. */
  readonly #names = new Map<string, string>();
  readonly #listeners = new Set<() => void>();
  readonly journal = new Journal();
  #pending: InstanceEvent[] = [];
  #synced = false;
  #syncing = false;
  /** True for the first batch after a list load: only it may hold events the list already has. */
  #overlap = false;
  #lastSeq = 0;
  #source: EventSource | undefined;
  /** The stream dropped and EventSource is reconnecting on its own. */
  #reconnecting = false;
  #frame = false;
  #applicationList: Application[] | undefined;

  /** Increases on every change; views compare it to know when to derive again. */
  version = 0;
  connection: Connection = 'connecting';
  /** Set when the list could not be loaded. */
  error: string | null = null;
  /** The first list has been loaded. */
  loaded = false;

  start(): void {
    this.#connect();
  }

  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  instance(id: string): Instance | undefined {
    return this.#instances.get(id);
  }

  /** The application name an id had when last seen, also after it deregistered. */
  nameOf(id: string): string | undefined {
    return this.#names.get(id);
  }

  get instanceCount(): number {
    return this.#instances.size;
  }

  applications(): readonly Application[] {
    this.#applicationList ??= [...this.#applications.values()];
    return this.#applicationList;
  }

  /** Loads the held event list once (the journal page asks for it); live events are kept from the start. */
  loadJournal(): void {
    if (this.journal.state === 'loading' || this.journal.state === 'complete') return;
    this.journal.state = 'loading';
    getJson<WireEvent[]>('/instances/events').then(
      (events) => this.journal.merge(events),
      (error: unknown) => this.journal.fail(messageOf(error)),
    ).finally(() => this.#changed());
    this.#changed();
  }

  #connect(): void {
    const source = new EventSource(apiUrl('/instances/events'));
    this.#source = source;
    source.onopen = () => {
      this.connection = 'live';
      this.#changed();
      // A stream that dropped before its first event reconnects without Last-Event-ID, so the
      // server cannot replay what it missed meanwhile: only a fresh list closes that gap.
      if (this.#synced && this.#lastSeq === 0 && this.#reconnecting) this.#resync([]);
      else if (!this.#synced) void this.#sync();
      this.#reconnecting = false;
    };
    source.onmessage = (message) => this.#receive(message);
    source.onerror = () => {
      if (source.readyState !== EventSource.CLOSED) {
        this.connection = 'reconnecting';
        this.#reconnecting = true;
      } else {
        // An HTTP error (401, 503 while the server stops...): EventSource gives up, and a new one
        // cannot send Last-Event-ID, so the list is loaded again once it is back.
        this.connection = 'offline';
        this.#synced = false;
        this.#pending = [];
        // A session that ended (signed out in another tab, idle) sends the browser to sign in.
        void checkSignedIn();
        if (this.#source === source) setTimeout(() => this.#connect(), RETRY_MS);
      }
      this.#changed();
    };
  }

  #receive(message: MessageEvent<string>): void {
    const seq = Number(message.lastEventId);
    let event: WireEvent;
    try {
      event = JSON.parse(message.data) as WireEvent;
    } catch {
      return; // not an event of ours; nothing to apply
    }
    const numbered = { ...event, seq } as InstanceEvent;
    // Seqs are consecutive across all instances, and a resumed stream sends exactly what was
    // missed: anything but the next number means another history (a restarted server numbers
    // its events above every earlier run's) or lost events. Either way only a fresh list is right.
    if (this.#synced && this.#lastSeq > 0 && seq !== this.#lastSeq + 1) return this.#resync([numbered]);
    this.#lastSeq = seq;
    this.#pending.push(numbered);
    this.#schedule();
  }

  /** Loads GET /applications and replaces everything held with it, then applies the held events. */
  async #sync(): Promise<void> {
    if (this.#syncing) return;
    this.#syncing = true;
    try {
      const applications = await getJson<WireApplication[]>('/applications');
      this.#instances.clear();
      this.#members.clear();
      this.#applications.clear();
      for (const application of applications) {
        for (const instance of application.instances) this.#put(instance);
        this.#applications.set(application.name, toApplication(application.name, application.instances));
      }
      this.#applicationList = undefined;
      this.#synced = true;
      this.#overlap = true;
      this.loaded = true;
      this.error = null;
      this.#flush();
    } catch (error) {
      this.error = `the instance list could not be loaded: ${messageOf(error)}`;
      this.#changed();
      // Try again while the stream is up; a closed stream loads the list when it reopens.
      setTimeout(() => {
        if (!this.#synced && this.#source?.readyState === EventSource.OPEN) void this.#sync();
      }, RETRY_MS);
    } finally {
      this.#syncing = false;
    }
  }

  /** The held state belongs to another history (the server restarted): start over from its list. */
  #resync(newer: InstanceEvent[]): void {
    this.#synced = false;
    this.#pending = newer;
    this.#lastSeq = newer.at(-1)?.seq ?? 0;
    this.journal.reset();
    void this.#sync();
  }

  #schedule(): void {
    if (this.#frame || !this.#synced) return;
    this.#frame = true;
    // A hidden tab gets no animation frames; a timer still keeps it current, at a calmer pace.
    if (document.hidden) setTimeout(() => this.#flush(), 250);
    else requestAnimationFrame(() => this.#flush());
  }

  #flush(): void {
    this.#frame = false;
    if (!this.#synced) return;
    const events = this.#pending;
    this.#pending = [];
    const overlap = this.#overlap;
    this.#overlap = false;
    const dirty = new Set<string>();
    for (const [index, event] of events.entries()) {
      const known = this.#instances.get(event.instance);
      if (known && event.version <= known.version) {
        if (overlap) continue; // already part of the loaded list (and of the journal's history)
        return this.#resync(events.slice(index));
      }
      this.journal.add(event);
      const before = known ?? emptyInstance(event.instance);
      const after = applyEvent(before, event);
      if (before.registration) dirty.add(before.registration.name);
      if (event.type === 'REGISTERED' || event.type === 'REGISTRATION_UPDATED') this.#names.set(event.instance, event.registration.name);
      if (after.registered && after.registration) {
        this.#put(after);
        dirty.add(after.registration.name);
      } else {
        this.#remove(before);
      }
    }
    for (const name of dirty) {
      const ids = this.#members.get(name);
      if (!ids || ids.size === 0) this.#applications.delete(name);
      else this.#applications.set(name, toApplication(name, [...ids].map((id) => this.#instances.get(id)!)));
    }
    if (dirty.size > 0) this.#applicationList = undefined;
    this.#changed();
  }

  #put(instance: Instance): void {
    const name = instance.registration!.name;
    const previous = this.#instances.get(instance.id)?.registration?.name;
    if (previous !== undefined && previous !== name) this.#members.get(previous)?.delete(instance.id);
    this.#instances.set(instance.id, instance);
    this.#names.set(instance.id, name);
    let ids = this.#members.get(name);
    if (!ids) this.#members.set(name, (ids = new Set()));
    ids.add(instance.id);
  }

  #remove(instance: Instance): void {
    this.#instances.delete(instance.id);
    if (instance.registration) this.#members.get(instance.registration.name)?.delete(instance.id);
  }

  #changed(): void {
    this.version += 1;
    for (const listener of this.#listeners) listener();
  }
}
