import type { NotificationFilter } from '../../core/domain/index.js';
import type { SharedMap, SharedState } from '../../core/plugin-api.js';

interface Stored {
  readonly instanceId?: string;
  readonly applicationName?: string;
  readonly expiry: string | null;
}

/** How long a node trusts its copy of the filters before reading the shared map again. */
const CACHE_MS = 1000;
const PREFIX = 'F-';

/** `POST /notifications/filters` beyond `notify.max-filters`. */
export class FilterLimitError extends Error {
  constructor(readonly limit: number) {
    super(`there are already ${limit} notification filters, the most notify.max-filters allows: delete one (or raise the limit)`);
    this.name = 'FilterLimitError';
  }
}

/** The live filters as read, and the same filters indexed by their target, each list oldest first. */
interface Snapshot {
  readonly at: number;
  readonly filters: NotificationFilter[];
  readonly byInstance: Map<string, NotificationFilter[]>;
  readonly byApplication: Map<string, NotificationFilter[]>;
}

/**
 * Notification filters, kept in `SHARED_STATE` (map `notify.filters`, counter `notify.filters`),
 * so a filter made on one node silences every node. A ttl becomes the entry's own expiry: an
 * expired filter is simply gone. Matching reads a copy at most a second old, indexed by instance
 * id and application name, so an event burst costs one read of the map and each event two
 * lookups, however many filters there are. Their number is capped (`max-filters`): each is
 * held by every node and read again every second.
 */
export class FilterStore {
  #cache: Snapshot | undefined;
  /** Creations one after the other, so two at once cannot both take the last place. */
  #creating: Promise<unknown> = Promise.resolve();

  constructor(private readonly state: () => SharedState, private readonly maxFilters: () => number) {}

  #map(): SharedMap {
    return this.state().map('notify.filters');
  }

  /**
   * SBA's rule: `instanceId` wins when both are given; a missing or negative ttl never expires.
   * Rejects with `FilterLimitError` when `max-filters` live filters exist already (nodes of a
   * cluster creating at the same moment may pass it by one each).
   */
  create(target: { instanceId: string } | { applicationName: string }, ttlMs: number | undefined): Promise<NotificationFilter> {
    const created = this.#creating.then(() => this.#create(target, ttlMs));
    this.#creating = created.catch(() => undefined);
    return created;
  }

  async #create(target: { instanceId: string } | { applicationName: string }, ttlMs: number | undefined): Promise<NotificationFilter> {
    const limit = this.maxFilters();
    if ((await this.#map().entries()).length >= limit) throw new FilterLimitError(limit);
    // SBA counts from F-0; the shared counter starts at 1.
    const id = `${PREFIX}${(await this.state().next('notify.filters')) - 1}`;
    const expires = ttlMs !== undefined && ttlMs >= 0;
    const stored: Stored = { ...target, expiry: expires ? new Date(Date.now() + ttlMs).toISOString() : null };
    await this.#map().set(id, JSON.stringify(stored), expires ? ttlMs : undefined);
    this.#cache = undefined;
    return view(id, stored);
  }

  async list(): Promise<NotificationFilter[]> {
    return (await this.#read()).filters;
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.#map().delete(id);
    this.#cache = undefined;
    return removed;
  }

  /** The oldest live filter that silences this instance (or, with instanceId '', this application), or undefined. */
  async matching(instanceId: string, applicationName: string): Promise<NotificationFilter | undefined> {
    const cached = this.#cache;
    const snapshot = cached && Date.now() - cached.at < CACHE_MS ? cached : await this.#read();
    const now = Date.now();
    const live = (filters: NotificationFilter[] | undefined) => filters?.find((filter) => filter.expiry === null || Date.parse(filter.expiry) > now);
    const byInstance = live(snapshot.byInstance.get(instanceId));
    const byApplication = live(snapshot.byApplication.get(applicationName));
    if (!byInstance || !byApplication) return byInstance ?? byApplication;
    return number(byInstance.id) < number(byApplication.id) ? byInstance : byApplication;
  }

  async #read(): Promise<Snapshot> {
    const entries = await this.#map().entries();
    const filters = entries.flatMap(([id, value]) => {
      const stored = parse(value);
      return stored ? [view(id, stored)] : [];
    });
    filters.sort((a, b) => number(a.id) - number(b.id));
    const byInstance = new Map<string, NotificationFilter[]>();
    const byApplication = new Map<string, NotificationFilter[]>();
    for (const filter of filters) {
      const [index, key] = filter.instanceId !== undefined ? [byInstance, filter.instanceId] : [byApplication, filter.applicationName!];
      const list = index.get(key);
      if (list) list.push(filter);
      else index.set(key, [filter]);
    }
    this.#cache = { at: Date.now(), filters, byInstance, byApplication };
    return this.#cache;
  }
}

const number = (id: string) => Number(id.slice(PREFIX.length));

function view(id: string, stored: Stored): NotificationFilter {
  return {
    id,
    ...(stored.instanceId !== undefined ? { instanceId: stored.instanceId } : { applicationName: stored.applicationName! }),
    expiry: stored.expiry,
    expired: stored.expiry !== null && Date.parse(stored.expiry) <= Date.now(),
  };
}

function parse(value: string): Stored | undefined {
  try {
    const stored = JSON.parse(value) as Stored;
    return typeof stored === 'object' && stored !== null ? stored : undefined;
  } catch {
    return undefined;
  }
}
