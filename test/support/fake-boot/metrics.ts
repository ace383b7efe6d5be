import type { IncomingMessage, ServerResponse } from 'node:http';

type Values = Record<string, number>;
interface Series { readonly tags: Readonly<Record<string, string>>; readonly values: (tick: number) => Values }
interface Metric { readonly description: string; readonly baseUnit: string | null; readonly series: readonly Series[] }

const MIB = 2 ** 20;
const wave = (tick: number, period: number) => Math.sin((tick / period) * Math.PI * 2);

const HEAP_POOLS: readonly [string, number, number][] = [['G1 Eden Space', 96, 160], ['G1 Old Gen', 110, 1024], ['G1 Survivor Space', 8, 16]];
const NONHEAP_POOLS: readonly [string, number, number][] = [['Metaspace', 92, -1], ['CodeCache', 31, 240], ['Compressed Class Space', 11, 1024]];

function memory(kind: 'used' | 'committed' | 'max'): Series[] {
  const pools = [...HEAP_POOLS.map((pool) => ['heap', ...pool] as const), ...NONHEAP_POOLS.map((pool) => ['nonheap', ...pool] as const)];
  return pools.map(([area, id, used, max], index) => ({
    tags: { area, id },
    values: (tick) => {
      // Eden fills and empties (a sawtooth); the rest drift slowly.
      const now = id === 'G1 Eden Space' ? used * (0.2 + ((tick * 7) % 40) / 40) : used * (1 + 0.03 * wave(tick + index, 17));
      const value = kind === 'used' ? now : kind === 'committed' ? Math.max(now * 1.25, used * 1.3) : max;
      return { VALUE: value < 0 ? -1 : Math.round(value * MIB) };
    },
  }));
}

/** The Micrometer meters a Spring Boot 3 service on Java 21 with HikariCP and Caffeine exposes, moving a little with each read. */
export const METRICS: Readonly<Record<string, Metric>> = {
  'jvm.memory.used': { description: 'The amount of used memory', baseUnit: 'bytes', series: memory('used') },
  'jvm.memory.committed': { description: 'The amount of memory in bytes that is committed for the Java virtual machine to use', baseUnit: 'bytes', series: memory('committed') },
  'jvm.memory.max': { description: 'The maximum amount of memory in bytes that can be used for memory management', baseUnit: 'bytes', series: memory('max') },
  'jvm.threads.live': { description: 'The current number of live threads including both daemon and non-daemon threads', baseUnit: 'threads', series: [{ tags: {}, values: (tick) => ({ VALUE: 41 + Math.round(3 * wave(tick, 9)) }) }] },
  'jvm.threads.daemon': { description: 'The current number of live daemon threads', baseUnit: 'threads', series: [{ tags: {}, values: (tick) => ({ VALUE: 33 + Math.round(2 * wave(tick, 9)) }) }] },
  'jvm.threads.peak': { description: 'The peak live thread count since the Java virtual machine started or peak was reset', baseUnit: 'threads', series: [{ tags: {}, values: () => ({ VALUE: 57 }) }] },
  'jvm.gc.pause': {
    description: 'Time spent in GC pause', baseUnit: 'seconds',
    series: [{ tags: { action: 'end of minor GC', cause: 'G1 Evacuation Pause', gc: 'G1 Young Generation' }, values: (tick) => ({ COUNT: 1200 + tick, TOTAL_TIME: 9.8 + tick * 0.008, MAX: 0.021 }) }],
  },
  'process.uptime': { description: 'The uptime of the Java virtual machine', baseUnit: 'seconds', series: [{ tags: {}, values: (tick) => ({ VALUE: 273_600 + tick * 2.5 }) }] },
  'process.start.time': { description: 'Start time of the process since unix epoch.', baseUnit: 'seconds', series: [{ tags: {}, values: () => ({ VALUE: Date.UTC(2026, 0, 2, 9, 0, 0) / 1000 }) }] },
  'process.cpu.usage': { description: 'The "recent cpu usage" for the Java Virtual Machine process', baseUnit: null, series: [{ tags: {}, values: (tick) => ({ VALUE: 0.12 + 0.06 * Math.abs(wave(tick, 13)) }) }] },
  'system.cpu.usage': { description: 'The "recent cpu usage" of the system the application is running in', baseUnit: null, series: [{ tags: {}, values: (tick) => ({ VALUE: 0.31 + 0.1 * Math.abs(wave(tick, 11)) }) }] },
  'system.cpu.count': { description: 'The number of processors available to the Java virtual machine', baseUnit: null, series: [{ tags: {}, values: () => ({ VALUE: 4 }) }] },
  'system.load.average.1m': { description: 'The sum of the number of runnable entities queued to available processors and the number of runnable entities running on the available processors averaged over a period of time', baseUnit: null, series: [{ tags: {}, values: (tick) => ({ VALUE: 0.74 + 0.2 * wave(tick, 15) }) }] },
  'jdbc.connections.active': { description: 'Current number of active connections that have been allocated from the data source.', baseUnit: null, series: [{ tags: { name: 'dataSource' }, values: (tick) => ({ VALUE: 2 + (tick % 3) }) }] },
  'jdbc.connections.idle': { description: 'Number of established but idle connections.', baseUnit: null, series: [{ tags: { name: 'dataSource' }, values: (tick) => ({ VALUE: 8 - (tick % 3) }) }] },
  'jdbc.connections.max': { description: 'Maximum number of active connections that can be allocated at the same time.', baseUnit: null, series: [{ tags: { name: 'dataSource' }, values: () => ({ VALUE: 10 }) }] },
  'jdbc.connections.min': { description: 'Minimum number of idle connections in the pool.', baseUnit: null, series: [{ tags: { name: 'dataSource' }, values: () => ({ VALUE: 10 }) }] },
  'cache.gets': {
    description: 'The number of times cache lookup methods have returned a cached (hit) or uncached (newly loaded or null) value (miss).', baseUnit: null,
    series: [
      { tags: { cache: 'invoices', cacheManager: 'cacheManager', name: 'invoices', result: 'hit' }, values: (tick) => ({ COUNT: 18_240 + tick * 9 }) },
      { tags: { cache: 'invoices', cacheManager: 'cacheManager', name: 'invoices', result: 'miss' }, values: (tick) => ({ COUNT: 1_312 + tick }) },
      { tags: { cache: 'customers', cacheManager: 'cacheManager', name: 'customers', result: 'hit' }, values: (tick) => ({ COUNT: 9_004 + tick * 3 }) },
      { tags: { cache: 'customers', cacheManager: 'cacheManager', name: 'customers', result: 'miss' }, values: (tick) => ({ COUNT: 97 + Math.floor(tick / 4) }) },
    ],
  },
  'cache.puts': { description: 'The number of entries added to the cache', baseUnit: null, series: ['invoices', 'customers'].map((name) => ({ tags: { cache: name, cacheManager: 'cacheManager', name }, values: (tick: number) => ({ COUNT: 1_400 + tick }) })) },
  'cache.evictions': { description: 'The number of times the cache was evicted.', baseUnit: null, series: ['invoices', 'customers'].map((name, index) => ({ tags: { cache: name, cacheManager: 'cacheManager', name }, values: () => ({ COUNT: 12 * (index + 1) }) })) },
  'cache.size': { description: 'The number of entries in this cache.', baseUnit: null, series: ['invoices', 'customers'].map((name, index) => ({ tags: { cache: name, cacheManager: 'cacheManager', name }, values: (tick: number) => ({ VALUE: 512 - index * 300 + (tick % 7) }) })) },
  'http.server.requests': {
    description: 'Duration of HTTP server request handling', baseUnit: 'seconds',
    series: [{ tags: { method: 'GET', outcome: 'SUCCESS', status: '200', uri: '/api/invoices' }, values: (tick) => ({ COUNT: 18_240 + 37 * tick, TOTAL_TIME: 912.4 + 1.9 * tick, MAX: 0.184 }) }],
  },
};

/**
 * `GET /actuator/metrics` and `/actuator/metrics/{name}?tag=k:v`, as Boot answers them: the
 * measurements of the series that carry every requested tag, summed (MAX taken as the largest),
 * the other tags with their values as `availableTags`, and 404 when no series matches.
 */
export function serveMetric(name: string, req: IncomingMessage, res: ServerResponse, tick: number): void {
  const metric = METRICS[name];
  const wanted = new URL(req.url ?? '/', 'http://x').searchParams.getAll('tag').map((tag) => tag.split(/:(.*)/s) as [string, string]);
  const series = metric?.series.filter((one) => wanted.every(([key, value]) => one.tags[key] === value)) ?? [];
  if (!metric || series.length === 0) {
    res.writeHead(404).end();
    return;
  }
  const totals: Values = {};
  for (const one of series) {
    for (const [statistic, value] of Object.entries(one.values(tick))) totals[statistic] = statistic === 'MAX' ? Math.max(totals[statistic] ?? value, value) : (totals[statistic] ?? 0) + value;
  }
  const available = new Map<string, Set<string>>();
  for (const one of series) for (const [key, value] of Object.entries(one.tags)) if (!wanted.some(([tag]) => tag === key)) available.set(key, (available.get(key) ?? new Set()).add(value));
  res.writeHead(200, { 'content-type': 'application/vnd.spring-boot.actuator.v3+json' }).end(JSON.stringify({
    name, description: metric.description, baseUnit: metric.baseUnit,
    measurements: Object.entries(totals).map(([statistic, value]) => ({ statistic, value })),
    availableTags: [...available].map(([tag, values]) => ({ tag, values: [...values] })),
  }));
}
