import { isDeepStrictEqual } from 'node:util';
import { getJson, type DiscoveredService, type DiscoverySource, type SourceContext } from '../../core/kits/discovery/index.js';
import { blockingLoop, type Blocking } from './blocking-loop.js';
import { toEntries } from './to-entries.js';

export interface ConsulKeys {
  readonly url: string;
  /** ACL token, sent as `X-Consul-Token`. */
  readonly token?: string;
  /** How long one blocking query may wait (Consul caps it at 10 minutes). */
  readonly wait: number;
  readonly datacenter?: string;
}

/**
 * Consul's catalog: `GET /v1/catalog/services`, then `GET /v1/health/service/<name>` for each
 * wanted service, with every instance whatever its checks say (Vigil checks health itself; an
 * instance failing its Consul checks must show DOWN, not vanish). While this node holds the
 * lease, blocking queries watch the catalog and each service; a run that a watch triggers is
 * answered from what they last saw, any other run reads Consul afresh.
 */
export function consulSource(context: SourceContext<ConsulKeys>): DiscoverySource {
  const { config, log } = context;
  const base = config.url.replace(/\/+$/, '');
  const headers: Record<string, string> = config.token ? { 'x-consul-token': config.token } : {};
  const query = (extra: Record<string, string> = {}) => {
    const params = new URLSearchParams({ ...(config.datacenter ? { dc: config.datacenter } : {}), ...extra });
    return params.size > 0 ? `?${params}` : '';
  };
  const fetchJson = async (path: string, signal: AbortSignal, blocking?: { index: number }) => {
    const params: Record<string, string> = blocking ? { index: String(blocking.index), wait: `${Math.ceil(config.wait / 1000)}s` } : {};
    // Consul adds up to wait/16 of jitter before it answers a blocking query.
    const headersTimeout = blocking ? config.wait + config.wait / 16 + 10_000 : 30_000;
    const answer = await getJson(`${base}${path}${query(params)}`, { headers, signal, headersTimeout });
    return { json: answer.json, index: Number(answer.headers['x-consul-index'] ?? 0) };
  };
  const servicesOf = (json: unknown): string[] =>
    Object.keys(typeof json === 'object' && json !== null && !Array.isArray(json) ? json : {}).filter((name) => context.wantsService(name)).sort();
  const instancesOf = async (name: string, signal: AbortSignal, blocking?: { index: number }) => {
    const { json, index } = await fetchJson(`/v1/health/service/${encodeURIComponent(name)}`, signal, blocking);
    return { entries: toEntries(name, json), index };
  };

  /** What the watches last saw: the wanted service names, and each one's instances. */
  const seen = { catalog: undefined as string[] | undefined, services: new Map<string, DiscoveredService[]>() };
  const loops = new Map<string, Blocking>();

  return {
    async list({ signal, reason }) {
      if (reason === 'change' && seen.catalog && seen.catalog.every((name) => seen.services.has(name))) {
        return seen.catalog.flatMap((name) => seen.services.get(name)!);
      }
      const names = servicesOf((await fetchJson('/v1/catalog/services', signal)).json);
      const lists = await Promise.all(names.map((name) => instancesOf(name, signal)));
      return lists.flatMap((list) => list.entries);
    },
    watch(changed, signal) {
      const watchService = (name: string) => {
        loops.set(name, blockingLoop(`service ${name}`, (index, loopSignal) => instancesOf(name, loopSignal, { index }), (entries) => {
          if (isDeepStrictEqual(seen.services.get(name), entries)) return;
          seen.services.set(name, entries);
          changed();
        }, signal, log));
      };
      loops.set('', blockingLoop('the catalog', async (index, loopSignal) => {
        const { json, index: next } = await fetchJson('/v1/catalog/services', loopSignal, { index });
        return { entries: servicesOf(json), index: next };
      }, (names) => {
        for (const [name, loop] of loops) {
          if (name !== '' && !names.includes(name)) {
            loop.stop();
            loops.delete(name);
            seen.services.delete(name);
          }
        }
        for (const name of names) if (!loops.has(name)) watchService(name);
        if (!isDeepStrictEqual(seen.catalog, names)) {
          seen.catalog = names;
          changed();
        }
      }, signal, log));
      signal.addEventListener('abort', () => {
        loops.clear();
        seen.catalog = undefined;
        seen.services.clear();
      }, { once: true });
    },
  };
}
