import type { SharedLog, SharedMap, SharedState } from '../../core/plugin-api.js';
import type { Keys } from './keys.js';
import type { RedisLink } from './redis-link.js';
import { LOG_APPEND, MAP_ENTRIES } from './scripts.js';

/**
 * SHARED_STATE in Redis: each entry of a map is a key of its own (so it can expire by itself,
 * which Redis 7.0's hashes cannot per field), indexed by a set of the map's keys.
 */
export class RedisSharedState implements SharedState {
  constructor(private readonly link: RedisLink, private readonly keys: Keys) {}

  map(name: string): SharedMap {
    const { keys, link } = this;
    const index = keys.stateKeys(name);
    return {
      get: async (key) => (await link.run('shared get', (client) => client.get(keys.state(name, key)))) ?? undefined,
      set: async (key, value, ttlMs) => {
        await link.run('shared set', (client) => client.multi()
          .set(keys.state(name, key), value, ttlMs === undefined ? {} : { PX: Math.max(1, Math.round(ttlMs)) })
          .sAdd(index, key)
          .exec());
      },
      delete: async (key) => {
        const [deleted] = await link.run('shared delete', (client) => client.multi().del(keys.state(name, key)).sRem(index, key).exec());
        return Number(deleted) > 0;
      },
      entries: async () => {
        const flat = await link.run('shared entries', (client) => MAP_ENTRIES.run<string[]>(client, [index], [keys.state(name, '')]));
        const result: [string, string][] = [];
        for (let i = 0; i + 1 < flat.length; i += 2) result.push([flat[i]!, flat[i + 1]!]);
        return result;
      },
    };
  }

  log(name: string, keep: number): SharedLog {
    const { keys, link } = this;
    const stream = keys.log(name);
    const counter = keys.logPosition(name);
    return {
      append: async (value) => Number(await link.run('log append', (client) => LOG_APPEND.run<string>(client, [stream, counter], [value, keep]))),
      after: async (after, count) => {
        const entries = await link.run('log read', (client) => client.sendCommand<[string, string[]][]>(['XRANGE', stream, `(0-${after}`, '+', 'COUNT', String(count)]));
        return entries.map(([id, fields]) => ({ position: Number(id.slice(2)), value: fields[1] ?? '' }));
      },
    };
  }

  async next(name: string): Promise<number> {
    return this.link.run('counter', (client) => client.incr(this.keys.counter(name)));
  }
}
