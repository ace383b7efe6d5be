import type { SharedMap } from '../../core/plugin-api.js';
import {
  globRegExpSource, type Attempt, type DeliveryTools, type MaintenanceHook, type MaintenanceWindowFacts,
} from '../../core/kits/notify-channel/index.js';

/** A matcher of Alertmanager's API v2 (`isEqual: false` would mean `!=` / `!~`). */
export interface Matcher {
  readonly name: string;
  readonly value: string;
  readonly isRegex: boolean;
  readonly isEqual: boolean;
}

/** The silences made for one window (map `notify-alertmanager.silences`, keyed by the window's key): one per kind of scope. */
interface MadeSilences {
  applications?: string;
  instances?: string;
}

/** Kept past the window's end, in case its end is told late. */
const KEEP_AFTER_END_MS = 3_600_000;
const LITERAL = /^[^*?]*$/;
const escapeRegex = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, '\\$&');

/**
 * The matchers of a window's silences. Alertmanager ANDs the matchers of one silence while a
 * window takes an instance in when its application OR its id matches, so each kind of scope gets a
 * silence of its own: `application=~"orders-.*|billing"` and `instance_id=~"1a2b…|3c4d…"` (an exact
 * `=` when one name without wildcards is given). Alertmanager anchors regular expressions itself.
 */
export function silenceMatchers(window: Pick<MaintenanceWindowFacts, 'applications' | 'instances'>): Partial<Record<keyof MadeSilences, Matcher[]>> {
  const matchers: Partial<Record<keyof MadeSilences, Matcher[]>> = {};
  const [application] = window.applications;
  if (window.applications.length === 1 && LITERAL.test(application!)) {
    matchers.applications = [{ name: 'application', value: application!, isRegex: false, isEqual: true }];
  } else if (window.applications.length > 0) {
    matchers.applications = [{ name: 'application', value: window.applications.map(globRegExpSource).join('|'), isRegex: true, isEqual: true }];
  }
  if (window.instances.length === 1) matchers.instances = [{ name: 'instance_id', value: window.instances[0]!, isRegex: false, isEqual: true }];
  else if (window.instances.length > 1) matchers.instances = [{ name: 'instance_id', value: window.instances.map(escapeRegex).join('|'), isRegex: true, isEqual: true }];
  return matchers;
}

/** The silence's comment: the window's reason, and which Vigil window made it. */
export function silenceComment(window: MaintenanceWindowFacts): string {
  const made = `Vigil maintenance window ${window.id}, made by ${window.createdBy}`;
  return window.reason ? `${window.reason} (${made})` : made;
}

/**
 * `silence-maintenance`: a maintenance window becomes Alertmanager silences for its whole span
 * (`POST /api/v2/silences`, `createdBy: Vigil`), so alerts about the same applications from other
 * sources are muted too; a window deleted before its end expires them (`DELETE
 * /api/v2/silence/{id}`); one that runs out needs nothing, its silences end with it. The ids
 * Alertmanager gave are kept in `SHARED_STATE`, so whichever node ends the window expires them and
 * a start told twice makes no second silence.
 */
export function silenceHook(base: string, kept: () => SharedMap): MaintenanceHook {
  const read = async (key: string): Promise<MadeSilences> => {
    const value = await kept().get(key);
    return value ? (JSON.parse(value) as MadeSilences) : {};
  };
  const save = (window: MaintenanceWindowFacts, made: MadeSilences) =>
    kept().set(window.key, JSON.stringify(made), Math.max(1, Date.parse(window.end) - Date.now()) + KEEP_AFTER_END_MS);
  return {
    async started(window, tools) {
      const made = await read(window.key);
      for (const [kind, matchers] of Object.entries(silenceMatchers(window)) as [keyof MadeSilences, Matcher[]][]) {
        if (made[kind]) continue;
        const result = await tools.send({
          url: `${base}/api/v2/silences`,
          body: { matchers, startsAt: window.start, endsAt: window.end, createdBy: 'Vigil', comment: silenceComment(window) },
          readAnswer: true,
        });
        if (result.outcome !== 'delivered') return result;
        const id = silenceIdOf(result.body);
        if (!id) return { outcome: 'failed', reason: 'Alertmanager answered without a silenceID' };
        made[kind] = id;
        await save(window, made);
        tools.log.info(`maintenance ${window.id}: silence ${id} made in Alertmanager (${matchers.map((m) => `${m.name}${m.isRegex ? '=~' : '='}"${m.value.slice(0, 200)}"`).join(', ')}) until ${window.end}`);
      }
      return { outcome: 'delivered' };
    },
    async ended(window, tools, early) {
      const made = await read(window.key);
      if (early) {
        for (const kind of Object.keys(made) as (keyof MadeSilences)[]) {
          const id = made[kind]!;
          const result = await expire(base, id, tools);
          if (result.outcome === 'retry') return result;
          delete made[kind];
          await save(window, made);
          if (result.outcome === 'delivered') tools.log.info(`maintenance ${window.id} was deleted: silence ${id} expired in Alertmanager`);
          else tools.log.warn(`maintenance ${window.id} was deleted, but Alertmanager refused to expire silence ${id}: ${result.reason}`);
        }
      }
      await kept().delete(window.key);
      return { outcome: 'delivered' };
    },
  };
}

/** Expires a silence; one Alertmanager no longer has, or has expired already, counts as done. */
async function expire(base: string, id: string, tools: DeliveryTools): Promise<Attempt> {
  const result = await tools.send({ url: `${base}/api/v2/silence/${encodeURIComponent(id)}`, method: 'DELETE', body: undefined });
  if (result.outcome === 'delivered' || result.status === 404 || /already expired/i.test('reason' in result ? result.reason : '')) return { outcome: 'delivered' };
  return result;
}

function silenceIdOf(body: string | undefined): string | undefined {
  try {
    const id = (JSON.parse(body ?? '') as { silenceID?: unknown }).silenceID;
    return typeof id === 'string' && id !== '' ? id : undefined;
  } catch {
    return undefined;
  }
}
