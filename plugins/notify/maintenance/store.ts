import type { SharedMap, SharedState } from '../../../core/plugin-api.js';
import type { RecurringWindowConfig } from './config.js';
import { ApiWindow, RecurringWindow, type ActiveWindow, type StoredWindow, type WindowView } from './window.js';

/** How long a node trusts its copy of the windows before reading the shared map again. */
const CACHE_MS = 1000;
/**
 * How long a window made through the API is kept after its end: a change recorded inside it and
 * still on its way (a `hold`) is held all the same, and the tracker can report its end.
 */
const RETAIN_AFTER_END_MS = 3_600_000;
const PREFIX = 'M-';

/** `POST /maintenance` beyond `notify.max-maintenance`. */
export class WindowLimitError extends Error {
  constructor(readonly limit: number) {
    super(`there are already ${limit} maintenance windows, the most notify.max-maintenance allows: delete one (or raise the limit)`);
    this.name = 'WindowLimitError';
  }
}

/** A window to make: times in ms, checked by the route. */
export interface NewWindow {
  readonly applications: string[];
  readonly instances: string[];
  readonly start: number;
  readonly end: number;
  readonly reason: string;
}

/** What deleting a window did. */
export type EndOutcome = 'removed' | 'ended' | 'recurring' | 'missing';

export interface MaintenanceStoreOptions {
  readonly state: () => SharedState;
  /** `notify.maintenance` and `notify.max-maintenance` as they are now (a reload changes them). */
  readonly recurring: () => readonly RecurringWindowConfig[];
  readonly maxWindows: () => number;
  /** The clock every decision reads (tests drive it across daylight-saving changes). */
  readonly now: () => number;
}

interface Snapshot {
  /** When it was read, by the process clock (its age). */
  readonly at: number;
  /** When the read began, by the clock of decisions (`options.now`): it knows of no change made later. */
  readonly from: number;
  readonly windows: readonly ApiWindow[];
}

/**
 * Maintenance windows: those made through the API, in `SHARED_STATE` (map and counter
 * `notify.maintenance`, ids `M-<n>`), so every node of a cluster holds the same notifications
 * back; and the recurring ones of `notify.maintenance`, the same on every node by config. A node
 * reads the map at most once a second for the pipeline, however many changes arrive.
 */
export class MaintenanceStore {
  #cache: Snapshot | undefined;
  #compiledWindows = new Map<string, { readonly value: string; readonly window: ApiWindow }>();
  #compiled: { readonly source: readonly RecurringWindowConfig[]; readonly windows: readonly RecurringWindow[] } | undefined;
  /** Creations one after the other, so two at once cannot both take the last place. */
  #creating: Promise<unknown> = Promise.resolve();
  /** A read under way for `covering`, shared by the calls it is fresh enough for. */
  #reading: { readonly from: number; readonly snapshot: Promise<Snapshot> } | undefined;

  constructor(private readonly options: MaintenanceStoreOptions) {}

  #map(): SharedMap {
    return this.options.state().map('notify.maintenance');
  }

  /** The recurring windows, compiled again only when the config changed. */
  recurring(): readonly RecurringWindow[] {
    const source = this.options.recurring();
    if (this.#compiled?.source !== source) this.#compiled = { source, windows: source.map((config) => new RecurringWindow(config)) };
    return this.#compiled.windows;
  }

  /** Rejects with `WindowLimitError` when `max-maintenance` windows are live (nodes creating at the same moment may pass it by one each). */
  create(window: NewWindow, createdBy: string): Promise<WindowView> {
    const created = this.#creating.then(() => this.#create(window, createdBy));
    this.#creating = created.catch(() => undefined);
    return created;
  }

  async #create(window: NewWindow, createdBy: string): Promise<WindowView> {
    const limit = this.options.maxWindows();
    const now = this.options.now();
    if ((await this.#read()).windows.filter((live) => live.end > now).length >= limit) throw new WindowLimitError(limit);
    const id = `${PREFIX}${await this.options.state().next('notify.maintenance')}`;
    const stored: StoredWindow = {
      applications: window.applications,
      instances: window.instances,
      start: new Date(window.start).toISOString(),
      end: new Date(window.end).toISOString(),
      reason: window.reason,
      createdBy,
      created: new Date(now).toISOString(),
    };
    await this.#map().set(id, JSON.stringify(stored), Math.max(1, window.end - now) + RETAIN_AFTER_END_MS);
    this.#cache = undefined;
    return new ApiWindow(id, stored).view(now);
  }

  /** Every window running or still to come, by start; recurring ones with their current or next occurrence. */
  async list(): Promise<WindowView[]> {
    const now = this.options.now();
    const made = (await this.#read()).windows.filter((window) => window.end > now).map((window) => window.view(now));
    const recurring = this.recurring().flatMap((window) => window.view(now) ?? []);
    return [...made, ...recurring].sort((a, b) => a.start.localeCompare(b.start) || a.id.localeCompare(b.id));
  }

  async get(id: string): Promise<WindowView | undefined> {
    return (await this.list()).find((window) => window.id === id);
  }

  /** The stored window `id` while it runs or is to come: what the access rule is asked about. */
  async stored(id: string): Promise<StoredWindow | undefined> {
    const window = (await this.#read()).windows.find((candidate) => candidate.id === id);
    return window && window.end > this.options.now() ? window.stored : undefined;
  }

  /**
   * Deletes a window: one still to come is removed; a running one ends now (kept a while as ended,
   * so the tracker reports what changed in it and changes on their way stay held). Recurring
   * windows live in the config and are not deleted here.
   */
  async end(id: string): Promise<EndOutcome> {
    if (this.recurring().some((window) => window.config.name === id)) return 'recurring';
    const now = this.options.now();
    const window = (await this.#read()).windows.find((candidate) => candidate.id === id);
    if (!window || window.end <= now) return 'missing';
    this.#cache = undefined;
    if (window.start > now) {
      await this.#map().delete(id);
      return 'removed';
    }
    // Its end is taken as late as can be, just before it is written: a change from then on is not
    // the end report's, and a node reading the windows after it must know the window is over.
    const endedAt = Math.min(this.options.now(), window.end);
    const ended: StoredWindow = { ...window.stored, end: new Date(endedAt).toISOString(), endedEarly: true };
    await this.#map().set(id, JSON.stringify(ended), RETAIN_AFTER_END_MS);
    return 'ended';
  }

  /**
   * When each window made through the API that is still kept ends or ended, by id, read fresh:
   * its planned end, or the moment it was deleted.
   */
  async ends(): Promise<ReadonlyMap<string, number>> {
    return new Map((await this.#read()).windows.map((window) => [window.id, window.end]));
  }

  /** The windows running at `at`, read fresh (the tracker's view). */
  async activeAt(at: number): Promise<ActiveWindow[]> {
    return this.#active(await this.#read(), at);
  }

  /**
   * A window holding back the instance's notifications at `at`, from a copy of the windows read
   * after `at` (the cached one when it is, else a fresh read shared by the changes it is fresh
   * enough for). A copy from before may not know yet of a window another node made just before
   * the change (the change would be notified on its own and again by the window's end report), or
   * that a window was deleted by then (a change after a window's end is not its end report's: held
   * back, nobody would tell it).
   */
  async covering(instanceId: string, application: string, at: number): Promise<ActiveWindow | undefined> {
    let snapshot = await this.#snapshot();
    if (snapshot.from <= at) snapshot = await this.#readAfter(at);
    return this.#active(snapshot, at).find((window) => window.scope.covers(instanceId, application));
  }

  /**
   * The windows over the instance that ended after `from` and at `to` at the latest (keys, as
   * the tracker knows them): those whose end report a change at `to` waits for.
   */
  async endedWithin(instanceId: string, application: string, from: number, to: number): Promise<string[]> {
    const keys: string[] = [];
    for (const window of (await this.#snapshot()).windows) {
      if (window.end > from && window.end <= to && window.scope.covers(instanceId, application)) keys.push(window.id);
    }
    for (const window of this.recurring()) {
      if (!window.scope.covers(instanceId, application)) continue;
      const { schedule } = window;
      for (let occurrence = schedule.next(from - schedule.durationMs); occurrence && occurrence.end <= to; occurrence = schedule.next(occurrence.start)) {
        if (occurrence.end > from) keys.push(window.facts(occurrence).key);
      }
    }
    return keys;
  }

  /** A window over the whole application (by name) at `at`: what holds its expectations back. */
  async coveringApplication(application: string, at: number): Promise<ActiveWindow | undefined> {
    return this.#active(await this.#snapshot(), at).find((window) => window.scope.coversApplication(application));
  }

  #active(snapshot: Snapshot, at: number): ActiveWindow[] {
    const active: ActiveWindow[] = [];
    for (const window of snapshot.windows) if (window.activeAt(at)) active.push({ facts: window.facts(), scope: window.scope });
    for (const window of this.recurring()) {
      const occurrence = window.at(at);
      if (occurrence) active.push({ facts: window.facts(occurrence), scope: window.scope });
    }
    return active;
  }

  async #snapshot(): Promise<Snapshot> {
    const cached = this.#cache;
    return cached && Date.now() - cached.at < CACHE_MS ? cached : this.#read();
  }

  /** A copy read after `at` when the clock allows (else now): one under way serves every call it is fresh enough for. */
  async #readAfter(at: number): Promise<Snapshot> {
    const reading = this.#reading;
    if (reading && reading.from > at) return reading.snapshot;
    const current = { from: this.options.now(), snapshot: this.#read() };
    this.#reading = current;
    try {
      return await current.snapshot;
    } finally {
      if (this.#reading === current) this.#reading = undefined;
    }
  }

  async #read(): Promise<Snapshot> {
    const from = this.options.now();
    const windows: ApiWindow[] = [];
    const compiled = new Map<string, { readonly value: string; readonly window: ApiWindow }>();
    for (const [id, value] of await this.#map().entries()) {
      // A window read before as the same text is reused: its globs are compiled once, not every second.
      const known = this.#compiledWindows.get(id);
      const window = known?.value === value ? known.window : windowOf(id, value);
      if (!window) continue;
      windows.push(window);
      compiled.set(id, { value, window });
    }
    this.#compiledWindows = compiled;
    windows.sort((a, b) => number(a.id) - number(b.id));
    this.#cache = { at: Date.now(), from, windows };
    return this.#cache;
  }
}

const number = (id: string) => Number(id.slice(PREFIX.length));

function windowOf(id: string, value: string): ApiWindow | undefined {
  try {
    const stored = JSON.parse(value) as StoredWindow;
    const valid = typeof stored === 'object' && stored !== null && Array.isArray(stored.applications) && Array.isArray(stored.instances)
      && !Number.isNaN(Date.parse(stored.start)) && !Number.isNaN(Date.parse(stored.end));
    return valid ? new ApiWindow(id, stored) : undefined;
  } catch {
    return undefined;
  }
}
