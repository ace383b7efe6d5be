import type { SharedMap, SharedState } from '../../core/plugin-api.js';

/** A notification filter as SBA's API shows it: by instance id or by application name, with an optional expiry. */
export interface FilterView {
  readonly id: string;
  readonly instanceId?: string;
  readonly applicationName?: string;
  /** ISO instant, or null for a filter that never expires. */
  readonly expiry: string | null;
  readonly expired: boolean;
}

interface Stored {
  readonly instanceId?: string;
  readonly applicationName?: string;
  readonly expiry: string | null;
}

/** How long a node trusts its copy of the filters before reading the shared map again. */
const CACHE_MS = 1000;
const PREFIX = 'F-';

/**
 * Notification filters, kept in `SHARED_STATE` (map `notify.filters`, counter `notify.filters`),
 * so a filter made on one node of a cluster silences every node. A ttl becomes the entry's own
 * expiry: an expired filter is simply gone. Matching reads a copy at most a second old, so an
 * event burst costs one read of the map, not one per event.
 */
export class FilterStore {
  #cache: { at: number; filters: FilterView[] } | undefined;

  constructor(private readonly state: () => SharedState) {}

  #map(): SharedMap {
    return this.state().map('notify.filters');
  }

  /** SBA's rule: `instanceId` wins when both are given; a missing or negative ttl never expires. */
  async create(target: { instanceId: string } | { applicationName: string }, ttlMs: number | undefined): Promise<FilterView> {
    // SBA counts from F-0; the shared counter starts at 1.
    const id = `${PREFIX}${(await this.state().next('notify.filters')) - 1}`;
    const expires = ttlMs !== undefined && ttlMs >= 0;
    const stored: Stored = { ...target, expiry: expires ? new Date(Date.now() + ttlMs).toISOString() : null };
    await this.#map().set(id, JSON.stringify(stored), expires ? ttlMs : undefined);
    this.#cache = undefined;
    return view(id, stored);
  }

  async list(): Promise<FilterView[]> {
    const entries = await this.#map().entries();
    const filters = entries.flatMap(([id, value]) => {
      const stored = parse(value);
      return stored ? [view(id, stored)] : [];
    });
    filters.sort((a, b) => Number(a.id.slice(PREFIX.length)) - Number(b.id.slice(PREFIX.length)));
    this.#cache = { at: Date.now(), filters };
    return filters;
  }

  async remove(id: string): Promise<boolean> {
    const removed = await this.#map().delete(id);
    this.#cache = undefined;
    return removed;
  }

  /** The first live filter that silences this instance, or undefined. */
  async matching(instanceId: string, applicationName: string): Promise<FilterView | undefined> {
    const cached = this.#cache;
    const filters = cached && Date.now() - cached.at < CACHE_MS ? cached.filters : await this.list();
    const now = Date.now();
    return filters.find((filter) => (filter.expiry === null || Date.parse(filter.expiry) > now)
      && (filter.instanceId !== undefined ? filter.instanceId === instanceId : filter.applicationName === applicationName));
  }
}

function view(id: string, stored: Stored): FilterView {
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
