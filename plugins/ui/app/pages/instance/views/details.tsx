import { useEffect, useState } from 'preact/hooks';
import { actuatorPath, getJson } from '../../../api';
import type { Point } from '../../../components/line-chart';
import { Meter } from '../../../components/meter';
import { SeriesChart } from '../../../components/series-chart';
import { formatInstant, formatValue } from '../../../format';
import { usePoll } from '../../../use-poll';
import type { InstanceViewProps } from '../view-props';
import { MetricReader, formatUptime } from './details-metrics';
import { formatMs } from './shared';

/** SBA's poll timers for these panels are 2.5 s; two minutes of samples are kept. */
const SAMPLE_MS = 2500;
const KEEP = 48;

interface Memory { readonly used?: number; readonly committed?: number; readonly max?: number }
interface Snapshot {
  readonly uptime?: number;
  readonly started?: number;
  readonly processCpu?: number;
  readonly systemCpu?: number;
  readonly cpus?: number;
  readonly load?: number;
  readonly threads: { live?: number; daemon?: number; peak?: number };
  readonly heap: Memory;
  readonly nonHeap: Memory;
  readonly pools: readonly (Memory & { name: string; area: string })[];
  readonly gc?: { count?: number; total?: number; max?: number };
  readonly datasources: readonly { name: string; active?: number; idle?: number; max?: number; min?: number }[];
  readonly caches: readonly { name: string; hits?: number; misses?: number; size?: number; evictions?: number; puts?: number }[];
}
type History = Record<string, Point[]>;

/**
 * The instance at a glance, from its Micrometer metrics, refreshed every 2.5 s while shown:
 * process (uptime, PID, CPU), threads, JVM memory (heap, non-heap, each pool), garbage collection,
 * and, where the application has them, data sources and cache statistics. Panels whose metrics
 * the instance lacks are left out.
 */
export default function DetailsView({ instance, endpoints }: InstanceViewProps) {
  const [names, setNames] = useState<ReadonlySet<string> | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [snapshot, setSnapshot] = useState<Snapshot | undefined>(undefined);
  const [history, setHistory] = useState<History>({});
  const [pid, setPid] = useState<string | undefined>(undefined);

  useEffect(() => {
    const abort = new AbortController();
    getJson<{ names?: string[] }>(actuatorPath(instance.id, 'metrics'), abort.signal).then(
      (body) => setNames(new Set(body.names ?? [])),
      (failure: unknown) => { if (!abort.signal.aborted) setError(`metrics: ${String((failure as Error).message)}`); },
    );
    void pidOf(instance.info, instance.id, endpoints.has('env'), abort.signal).then(setPid);
    return () => abort.abort();
  }, [instance.id]);

  usePoll(async (signal) => {
    if (!names) return;
    const next = await sample(new MetricReader(instance.id, names, signal));
    if (signal.aborted) return;
    const t = Date.now();
    setSnapshot(next);
    setHistory((previous) => {
      const add = (key: string, value: number | undefined) => (value === undefined ? previous[key] ?? [] : [...(previous[key] ?? []).slice(1 - KEEP), { t, v: value }]);
      return {
        heapUsed: add('heapUsed', next.heap.used), heapCommitted: add('heapCommitted', next.heap.committed),
        nonHeapUsed: add('nonHeapUsed', next.nonHeap.used), nonHeapCommitted: add('nonHeapCommitted', next.nonHeap.committed),
        live: add('live', next.threads.live), daemon: add('daemon', next.threads.daemon),
        processCpu: add('processCpu', next.processCpu === undefined ? undefined : next.processCpu * 100),
        systemCpu: add('systemCpu', next.systemCpu === undefined ? undefined : next.systemCpu * 100),
      };
    });
  }, SAMPLE_MS, [instance.id, names]);

  if (error) return <p class="error">{error}</p>;
  if (!snapshot) return <p class="muted">Reading the instance's metrics…</p>;
  const s = snapshot;
  return (
    <div class="details">
      <article class="card" aria-label="Process">
        <h2>Process</h2>
        <dl class="pairs">
          <dt>PID</dt><dd class="mono">{pid ?? '–'}</dd>
          <dt>Uptime</dt><dd>{s.uptime !== undefined ? formatUptime(s.uptime) : '–'}</dd>
          <dt>Started</dt><dd>{s.started !== undefined ? formatInstant(new Date(s.started * 1000).toISOString()) : '–'}</dd>
          <dt>CPUs</dt><dd>{s.cpus ?? '–'}</dd>
          <dt>Load average (1 min)</dt><dd>{s.load !== undefined && s.load >= 0 ? s.load.toFixed(2) : '–'}</dd>
        </dl>
        <SeriesChart label="CPU usage" unit="%" max={100} series={[{ label: 'process', points: history.processCpu ?? [] }, { label: 'system', points: history.systemCpu ?? [] }]} />
      </article>
      <article class="card" aria-label="Threads">
        <h2>Threads</h2>
        <dl class="pairs"><dt>Live</dt><dd>{s.threads.live ?? '–'}</dd><dt>Daemon</dt><dd>{s.threads.daemon ?? '–'}</dd><dt>Peak live</dt><dd>{s.threads.peak ?? '–'}</dd></dl>
        <SeriesChart label="Threads" unit={null} series={[{ label: 'live', points: history.live ?? [] }, { label: 'daemon', points: history.daemon ?? [] }]} />
      </article>
      <MemoryCard title="Heap" memory={s.heap} used={history.heapUsed ?? []} committed={history.heapCommitted ?? []} />
      <MemoryCard title="Non-heap" memory={s.nonHeap} used={history.nonHeapUsed ?? []} committed={history.nonHeapCommitted ?? []} />
      {s.gc && (
        <article class="card" aria-label="Garbage collection">
          <h2>Garbage collection</h2>
          <dl class="pairs">
            <dt>Collections</dt><dd>{s.gc.count?.toLocaleString() ?? '–'}</dd>
            <dt>Time spent</dt><dd>{s.gc.total !== undefined ? formatMs(s.gc.total * 1000) : '–'}</dd>
            <dt>Longest pause (recent)</dt><dd>{s.gc.max !== undefined ? formatMs(s.gc.max * 1000) : '–'}</dd>
          </dl>
        </article>
      )}
      {s.datasources.length > 0 && (
        <article class="card" aria-label="Data sources">
          <h2>Data sources</h2>
          {s.datasources.map((ds) => (
            <div key={ds.name}>
              <Meter label={`${ds.name}: active connections`} unit="" used={ds.active ?? 0} {...optional(undefined, ds.max)} />
              <p class="muted small">idle {ds.idle ?? '–'}, min {ds.min ?? '–'}, max {ds.max ?? '–'}</p>
            </div>
          ))}
        </article>
      )}
      {s.pools.length > 0 && (
        <article class="card wide" aria-label="Memory pools">
          <h2>Memory pools</h2>
          <div class="pools">
            {s.pools.map((pool) => <Meter key={pool.name} label={`${pool.name} (${pool.area})`} used={pool.used ?? 0} {...optional(pool.committed, pool.max)} />)}
          </div>
        </article>
      )}
      {s.caches.length > 0 && (
        <article class="card wide" aria-label="Cache statistics">
          <h2>Caches</h2>
          <table class="grid-table">
            <thead><tr><th>Cache</th><th>Hits</th><th>Misses</th><th>Hit ratio</th><th>Size</th><th>Puts</th><th>Evictions</th></tr></thead>
            <tbody>
              {s.caches.map((cache) => {
                const lookups = (cache.hits ?? 0) + (cache.misses ?? 0);
                return (
                  <tr key={cache.name}>
                    <td class="mono">{cache.name}</td>
                    <td class="num">{cache.hits?.toLocaleString() ?? '–'}</td>
                    <td class="num">{cache.misses?.toLocaleString() ?? '–'}</td>
                    <td class="num">{lookups > 0 ? `${(((cache.hits ?? 0) / lookups) * 100).toFixed(1)} %` : '–'}</td>
                    <td class="num">{cache.size?.toLocaleString() ?? '–'}</td>
                    <td class="num">{cache.puts?.toLocaleString() ?? '–'}</td>
                    <td class="num">{cache.evictions?.toLocaleString() ?? '–'}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </article>
      )}
    </div>
  );
}

function MemoryCard({ title, memory, used, committed }: { title: string; memory: Memory; used: readonly Point[]; committed: readonly Point[] }) {
  if (memory.used === undefined) return null;
  return (
    <article class="card" aria-label={title}>
      <h2>{title}</h2>
      <Meter label={`${title} used`} used={memory.used} {...optional(memory.committed, memory.max)} />
      <SeriesChart label={`${title} memory`} unit="bytes" series={[{ label: 'used', points: used }, { label: 'committed', points: committed }]} />
      <p class="muted small">committed {memory.committed !== undefined ? formatValue(memory.committed, 'bytes') : '–'}{memory.max !== undefined && memory.max > 0 ? `, max ${formatValue(memory.max, 'bytes')}` : ''}</p>
    </article>
  );
}

/** Optional props without `undefined` values (the meter tells "no max" from "max 0"). */
function optional(committed: number | undefined, max: number | undefined): { committed?: number; max?: number } {
  return { ...(committed !== undefined ? { committed } : {}), ...(max !== undefined ? { max } : {}) };
}

async function sample(m: MetricReader): Promise<Snapshot> {
  // The pools of an area are the `id` values its `used` reading offers.
  const memory = async (tags: Record<string, string>): Promise<Memory & { pools: readonly string[] }> => {
    const [used, committed, max] = await Promise.all([m.read('jvm.memory.used', tags), m.value('jvm.memory.committed', tags), m.value('jvm.memory.max', tags)]);
    const value = used?.values.VALUE;
    return { ...(value !== undefined ? { used: value } : {}), ...(committed !== undefined ? { committed } : {}), ...(max !== undefined ? { max } : {}), pools: used?.tags.id ?? [] };
  };
  const [uptime, started, processCpu, systemCpu, cpus, load, live, daemon, peak, heap, nonHeap, gc] = await Promise.all([
    m.value('process.uptime'), m.value('process.start.time'), m.value('process.cpu.usage'), m.value('system.cpu.usage'), m.value('system.cpu.count'),
    m.value('system.load.average.1m'), m.value('jvm.threads.live'), m.value('jvm.threads.daemon'), m.value('jvm.threads.peak'),
    memory({ area: 'heap' }), memory({ area: 'nonheap' }), m.read('jvm.gc.pause'),
  ]);
  const areas = [...heap.pools.map((name) => [name, 'heap'] as const), ...nonHeap.pools.map((name) => [name, 'non-heap'] as const)];
  const pools = await Promise.all(areas.map(async ([name, area]) => ({ name, area, ...(await memory({ id: name })) })));
  const jdbc = m.has('jdbc.connections.active');
  const dsMetric = jdbc ? 'jdbc.connections' : 'hikaricp.connections';
  const dsTag = jdbc ? 'name' : 'pool';
  const dsNames = (await m.read(`${dsMetric}.active`))?.tags[dsTag] ?? [];
  const datasources = await Promise.all(dsNames.map(async (name) => {
    const [active, idle, max, min] = await Promise.all(['active', 'idle', 'max', 'min'].map((kind) => m.value(`${dsMetric}.${kind}`, { [dsTag]: name })));
    return { name, active, idle, max, min };
  }));
  const cacheNames = (await m.read('cache.gets'))?.tags.name ?? [];
  const caches = await Promise.all(cacheNames.map(async (name) => {
    const [hits, misses, size, evictions, puts] = await Promise.all([
      m.value('cache.gets', { name, result: 'hit' }, 'COUNT'), m.value('cache.gets', { name, result: 'miss' }, 'COUNT'),
      m.value('cache.size', { name }), m.value('cache.evictions', { name }, 'COUNT'), m.value('cache.puts', { name }, 'COUNT'),
    ]);
    return { name, hits, misses, size, evictions, puts };
  }));
  return {
    ...(uptime !== undefined ? { uptime } : {}), ...(started !== undefined ? { started } : {}), ...(processCpu !== undefined ? { processCpu } : {}),
    ...(systemCpu !== undefined ? { systemCpu } : {}), ...(cpus !== undefined ? { cpus } : {}), ...(load !== undefined ? { load } : {}),
    threads: { live, daemon, peak }, heap, nonHeap, pools,
    ...(gc ? { gc: { count: gc.values.COUNT, total: gc.values.TOTAL_TIME, max: gc.values.MAX } } : {}),
    datasources, caches,
  };
}

/** The PID: Boot 3.3's `info.process.pid` when the instance shares it, else the `PID` property of its environment. */
async function pidOf(info: Readonly<Record<string, unknown>>, id: string, hasEnv: boolean, signal: AbortSignal): Promise<string | undefined> {
  const fromInfo = (info.process as { pid?: unknown } | undefined)?.pid;
  if (typeof fromInfo === 'number' || typeof fromInfo === 'string') return String(fromInfo);
  if (!hasEnv) return undefined;
  try {
    const body = await getJson<{ property?: { value?: unknown } }>(actuatorPath(id, 'env/PID'), signal);
    return body.property?.value === undefined ? undefined : String(body.property.value);
  } catch {
    return undefined;
  }
}
