import { formatValue } from '../format';
import type { Point } from './line-chart';

export interface Series {
  readonly label: string;
  readonly points: readonly Point[];
}

const WIDTH = 640;
const HEIGHT = 160;
const TOP = 10;

/**
 * Several series over the same time, as lines from zero up (usage reads best against zero): the
 * newest sample on the right, a legend with each one's current value. Series are coloured by
 * position (`series-0`, `series-1`...), so legend and line always agree.
 */
export function SeriesChart({ series, unit, label, max: fixedMax }: { series: readonly Series[]; unit: string | null; label: string; max?: number }) {
  const all = series.flatMap((one) => one.points);
  if (all.length === 0) return <div class="chart chart-empty">Waiting for the first value…</div>;
  const max = fixedMax ?? (Math.max(...all.map((point) => point.v), 0) * 1.1 || 1);
  const t0 = Math.min(...all.map((point) => point.t));
  const span = Math.max(Math.max(...all.map((point) => point.t)) - t0, 1);
  const x = (t: number) => ((t - t0) / span) * WIDTH;
  const y = (v: number) => TOP + (1 - v / max) * (HEIGHT - TOP);
  const line = (points: readonly Point[]) => points.length === 1
    ? `0,${y(points[0]!.v).toFixed(1)} ${WIDTH},${y(points[0]!.v).toFixed(1)}`
    : points.map((point) => `${x(point.t).toFixed(1)},${y(point.v).toFixed(1)}`).join(' ');
  const current = series.map((one) => `${one.label} ${one.points.length > 0 ? formatValue(one.points.at(-1)!.v, unit) : '–'}`).join(', ');
  return (
    <figure class="chart series-chart">
      <div class="chart-plot small">
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${label}: ${current}`}>
          <line x1={0} x2={WIDTH} y1={y(max)} y2={y(max)} class="grid" />
          <line x1={0} x2={WIDTH} y1={y(max / 2)} y2={y(max / 2)} class="grid" />
          {series.map((one, index) => one.points.length > 0 && <polyline key={one.label} points={line(one.points)} class={`series series-${index}`} />)}
        </svg>
        <span class="chart-max">{formatValue(max, unit)}</span>
        <span class="chart-min">{formatValue(0, unit)}</span>
      </div>
      <figcaption class="legend">
        {series.map((one, index) => (
          <span key={one.label} class={`legend-item series-${index}`}>
            <i aria-hidden="true" /> {one.label} <b>{one.points.length > 0 ? formatValue(one.points.at(-1)!.v, unit) : '–'}</b>
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
