import { useEffect, useMemo, useState } from 'preact/hooks';
import { actuatorPath, getJson, messageOf } from '../../api';
import { LineChart, type Point } from '../../components/line-chart';
import { formatValue } from '../../format';
import { useActuator } from './use-actuator';
import type { InstanceViewProps } from './view-props';

interface MetricNames { readonly names: readonly string[] }
interface Metric {
  readonly name: string;
  readonly description?: string | null;
  readonly baseUnit?: string | null;
  readonly measurements: ReadonlyArray<{ readonly statistic: string; readonly value: number }>;
  readonly availableTags?: ReadonlyArray<{ readonly tag: string; readonly values: readonly string[] }>;
}

/** Samples are taken while the chart is on screen; this many (two minutes) are kept. */
const SAMPLE_MS = 2000;
const KEEP = 60;

/** Pick a metric from the instance's list, then watch it as a live chart. */
export default function MetricsView({ instance }: InstanceViewProps) {
  const id = instance.id;
  const { data, error } = useActuator<MetricNames>(id, 'metrics');
  const [query, setQuery] = useState('');
  const [picked, setPicked] = useState<string | null>(null);
  const names = useMemo(() => [...(data?.names ?? [])].sort(), [data]);
  const shown = names.filter((name) => name.includes(query.trim().toLowerCase()));
  return (
    <div class="split">
      <aside class="picker">
        <input type="search" placeholder="Find a metric" aria-label="Find a metric" value={query}
          onInput={(event) => setQuery((event.currentTarget as HTMLInputElement).value)} />
        {error && <p class="error">{error}</p>}
        <ul class="pick-list" aria-label="Metrics">
          {shown.map((name) => (
            <li key={name}><button type="button" aria-pressed={name === picked} onClick={() => setPicked(name)}>{name}</button></li>
          ))}
        </ul>
        {data && shown.length === 0 && <p class="muted">No metric matches.</p>}
      </aside>
      <div class="detail">
        {picked ? <MetricChart key={picked} id={id} name={picked} /> : <p class="muted">Pick a metric to chart it live.</p>}
      </div>
    </div>
  );
}

function MetricChart({ id, name }: { id: string; name: string }) {
  const [metric, setMetric] = useState<Metric | null>(null);
  const [series, setSeries] = useState<Record<string, Point[]>>({});
  const [statistic, setStatistic] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  useEffect(() => {
    const abort = new AbortController();
    const sample = async () => {
      if (document.hidden) return;
      try {
        const value = await getJson<Metric>(actuatorPath(id, `metrics/${encodeURIComponent(name)}`), abort.signal);
        const t = Date.now();
        setMetric(value);
        setError(null);
        setSeries((previous) => {
          const next: Record<string, Point[]> = {};
          for (const { statistic: stat, value: v } of value.measurements) next[stat] = [...(previous[stat] ?? []).slice(1 - KEEP), { t, v }];
          return next;
        });
      } catch (failure) {
        if (!abort.signal.aborted) setError(messageOf(failure));
      }
    };
    void sample();
    const timer = setInterval(() => void sample(), SAMPLE_MS);
    return () => {
      clearInterval(timer);
      abort.abort();
    };
  }, [id, name]);

  const statistics = metric?.measurements.map((m) => m.statistic) ?? [];
  const current = statistic && statistics.includes(statistic) ? statistic : statistics[0];
  return (
    <article class="card metric">
      <h2>{name}</h2>
      {metric?.description && <p class="muted">{metric.description}</p>}
      {error && <p class="error">{error}</p>}
      {statistics.length > 1 && (
        <div class="chips" role="group" aria-label="Statistic">
          {statistics.map((stat) => <button type="button" key={stat} class="chip" aria-pressed={stat === current} onClick={() => setStatistic(stat)}>{stat}</button>)}
        </div>
      )}
      {current && <LineChart points={series[current] ?? []} unit={metric?.baseUnit ?? null} label={current} />}
      {metric && (
        <dl class="pairs">
          {metric.measurements.map((m) => [<dt key={`s-${m.statistic}`}>{m.statistic}</dt>, <dd key={`v-${m.statistic}`}>{formatValue(m.value, metric.baseUnit)}</dd>])}
          {(metric.availableTags ?? []).map((tag) => [<dt key={`t-${tag.tag}`}>tag {tag.tag}</dt>, <dd key={`tv-${tag.tag}`} class="muted">{tag.values.join(', ')}</dd>])}
        </dl>
      )}
    </article>
  );
}
