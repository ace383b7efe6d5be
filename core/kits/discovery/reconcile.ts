import { instanceIdOf, messageOf, sameRegistration, type Fence, type Logger, type Registry, type SharedMap } from '../../plugin-api.js';
import { maskUrlPassword, type Registration } from '../../domain/index.js';
import { mapLimit } from '../runtime/index.js';
import type { DiscoveryConfig } from './config.js';
import { convertService } from './convert.js';
import { wantsInstance, wantsService } from './filters.js';
import type { Discovered } from './types.js';

/** What one run changed; `withheld` removals wait for the next run to agree (`max-removal`). */
export interface RunDiff {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly kept: number;
  readonly withheld: number;
  /** Listed, but registered over HTTP or by another source, so left alone. */
  readonly untouched: number;
}

/** The shared map that holds every source's state, so that it survives a lease moving to another node. */
export const STATE_MAP = 'discovery';
const ownedKey = (source: string) => `${source}.owned`;
const pendingKey = (source: string) => `${source}.pending-removal`;
/** Registry writes in flight at once: enough to hide a shared log's round trips, few enough to stay fair. */
const CONCURRENCY = 32;

export interface Desired {
  readonly registrations: Map<string, Registration>;
  /** Entries that passed the filters but could not be converted, one line each. */
  readonly problems: readonly string[];
}

/** Instance ids by registration: a conversion found in the cache comes with its id (no SHA-1 again). */
const ids = new WeakMap<Registration, string>();

/** Applies the filters and SBA's conversion; the result is keyed by instance id, first entry winning. */
export function desiredSet(entries: readonly Discovered[], config: DiscoveryConfig): Desired {
  const registrations = new Map<string, Registration>();
  const problems: string[] = [];
  // A source lists many instances of few services: each name is matched against the patterns once.
  const names = new Map<string, boolean>();
  for (const entry of entries) {
    const listed = 'registration' in entry ? entry.registration : entry;
    let wanted = names.get(listed.name);
    if (wanted === undefined) names.set(listed.name, (wanted = wantsService(config, listed.name)));
    if (!wanted || !wantsInstance(config, listed.metadata ?? {})) continue;
    let registration: Registration;
    try {
      if ('registration' in entry) registration = entry.registration.source === 'discovery' ? entry.registration : { ...entry.registration, source: 'discovery' };
      else registration = convertService(entry, config);
    } catch (error) {
      problems.push(`${listed.name} at ${maskUrlPassword('uri' in listed ? listed.uri : listed.healthUrl)}: ${messageOf(error)}`);
      continue;
    }
    let id = ids.get(registration);
    if (id === undefined) ids.set(registration, (id = instanceIdOf(registration.healthUrl)));
    // One endpoint may sit in two Kubernetes slices while they are rebalanced: the same instance twice.
    if (!registrations.has(id)) registrations.set(id, registration);
  }
  return { registrations, problems };
}

/** What a run changed, and how many instances the source held before and holds after it (withheld removals still held). */
export interface Reconciled {
  readonly diff: RunDiff;
  readonly ownedBefore: number;
  readonly ownedAfter: number;
}

export interface ReconcileInput {
  readonly source: string;
  readonly desired: Desired;
  readonly config: DiscoveryConfig;
  readonly registry: Registry;
  readonly state: SharedMap;
  readonly fence: Fence;
  readonly log: Logger;
  /**
   * Whether this run read the source afresh (not a watch's `change`), so that it may confirm a
   * withheld removal: events of one change arrive in bursts, and two runs a millisecond apart
   * that saw the same burst are not two opinions.
   */
  readonly confirms: boolean;
  /** The kernel's: a run stops writing when the kernel stops (what it wrote stays recorded as claimed). */
  readonly signal?: AbortSignal;
}

/**
 * Makes the registry hold what the source lists, touching only what this source registered:
 * registers the new and changed, deregisters what it listed before and no longer lists, and
 * leaves alone instances registered over HTTP or by another source. What each source registered
 * is kept in `SHARED_STATE` (so a node that takes the lease over continues where the last one
 * stopped), with the removal a previous run withheld; a run that would remove more than
 * `max-removal` of the source's instances records its removal and applies it only when the next
 * run that read the source afresh would remove exactly the same instances.
 */
export async function reconcile(input: ReconcileInput): Promise<Reconciled> {
  const { source, registry, state, fence, log } = input;
  const sets = await readState(state, source);
  const owned = new Set<string>();
  const changes: [string, Registration][] = [];
  let added = 0;
  let updated = 0;
  let kept = 0;
  let untouched = 0;
  // Most of a run is "still listed, unchanged": decided here without a promise per instance.
  for (const [id, registration] of input.desired.registrations) {
    const current = registry.get(id);
    const registered = current?.registered === true && current.registration !== null ? current.registration : undefined;
    if (registered && (registered.source !== 'discovery' || sets.others.has(id))) {
      untouched += 1;
      continue;
    }
    owned.add(id);
    if (registered && (registered === registration || sameRegistration(registered, registration))) kept += 1;
    else changes.push([id, registration]);
  }
  let done = false;
  try {
    await inBatches(changes, input.signal, async ([id, registration]) => {
      const { event } = await registry.register(registration, { fence });
      if (event?.type === 'REGISTERED') added += 1;
      else if (event?.type === 'REGISTRATION_UPDATED') updated += 1;
      else kept += 1;
      log.debug(`${event?.type ?? 'kept'} ${id} (${registration.name} at ${registration.healthUrl})`);
    });

    const mine = (id: string) => {
      const current = registry.get(id);
      return current?.registered === true && current.registration?.source === 'discovery' && !sets.others.has(id);
    };
    const before = [...sets.owned].filter(mine);
    const removals = before.filter((id) => !input.desired.registrations.has(id)).sort();
    let removed = 0;
    let withheld = 0;
    const agreed = sameIds(removals, sets.pending);
    if (removals.length > input.config['max-removal'] * before.length && !(agreed && input.confirms)) {
      withheld = removals.length;
      for (const id of removals) owned.add(id);
      if (!agreed) {
        await state.set(pendingKey(source), JSON.stringify(removals));
        log.warn(`this run would remove ${removals.length} of the ${before.length} instances this source listed, more than max-removal `
          + `(${Math.round(input.config['max-removal'] * 100)}%): nothing is removed unless the next run agrees`);
      }
    } else {
      await inBatches(removals, input.signal, async (id) => {
        const name = registry.get(id)?.registration?.name;
        if (await registry.deregister(id, { fence })) removed += 1;
        log.debug(`DEREGISTERED ${id} (${name ?? 'unknown'}): no longer listed`);
      });
      if (sets.pending.length > 0) await state.delete(pendingKey(source));
    }
    done = true;
    return { diff: { added, updated, removed, kept, withheld, untouched }, ownedBefore: before.length, ownedAfter: owned.size };
  } finally {
    // After a failure part of the run is applied: keep claiming everything claimed before too, so
    // nothing this source registered is orphaned; a later run removes what it no longer lists.
    if (!done) for (const id of sets.owned) owned.add(id);
    if (!sameSet(owned, sets.owned)) {
      await state.set(ownedKey(source), JSON.stringify([...owned])).catch((error: unknown) => {
        if (done) throw error;
        log.warn(`could not record which instances this source registered: ${messageOf(error)}`);
      });
    }
  }
}

interface SourceState {
  readonly owned: ReadonlySet<string>;
  /** Sorted. */
  readonly pending: readonly string[];
  /** Every id another source registered. */
  readonly others: ReadonlySet<string>;
}

async function readState(state: SharedMap, source: string): Promise<SourceState> {
  let owned = new Set<string>();
  let pending: string[] = [];
  const stronger = new Set<string>();
  const weaker: string[] = [];
  for (const [key, value] of await state.entries()) {
    if (key === ownedKey(source)) owned = new Set(parseIds(key, value));
    else if (key === pendingKey(source)) pending = [...parseIds(key, value)].sort();
    else if (key.endsWith('.owned')) {
      // Two sources that ran at the same time may both claim an instance: the name that sorts
      // first keeps it, so both agree without talking to each other.
      const other = key.slice(0, -'.owned'.length);
      if (other < source) for (const id of parseIds(key, value)) stronger.add(id);
      else for (const id of parseIds(key, value)) weaker.push(id);
    }
  }
  for (const id of stronger) owned.delete(id);
  const others = new Set(stronger);
  for (const id of weaker) if (!owned.has(id)) others.add(id);
  return { owned, pending, others };
}

/** The last parse of each key's value: a source's record of 20,000 ids is read every run, and rarely changes. */
const parsedIds = new Map<string, { value: string; ids: readonly string[] }>();

function parseIds(key: string, value: string): readonly string[] {
  const known = parsedIds.get(key);
  if (known?.value === value) return known.ids;
  let ids: string[] = [];
  try {
    const parsed: unknown = JSON.parse(value);
    if (Array.isArray(parsed)) ids = parsed.filter((id): id is string => typeof id === 'string');
  } catch {
    // a damaged record counts as empty: the source registers again what it lists
  }
  parsedIds.set(key, { value, ids });
  return ids;
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const id of a) if (!b.has(id)) return false;
  return true;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, index) => id === b[index]);
}

/**
 * Runs `task` over `items` with at most CONCURRENCY in flight; the first failure rejects after the
 * others settle. A run stopped (`signal`) fails: it did not finish.
 */
async function inBatches<T>(items: readonly T[], signal: AbortSignal | undefined, task: (item: T) => Promise<void>): Promise<void> {
  await mapLimit(items, CONCURRENCY, task, signal);
  if (signal?.aborted) throw new Error('stopping');
}
