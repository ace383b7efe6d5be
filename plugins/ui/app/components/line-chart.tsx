import { formatValue } from '../format';

export interface Point {
  /** Milliseconds since the epoch. */
  readonly t: number;
  readonly v: number;
}

const WIDTH = 640;
const HEIGHT = 220;
const PAD = { left: 0, right: 0, top: 24, bottom: 24 };

/** A live line chart of one series: the newest point on the right, scaled to the values shown. */
export function LineChart({ points, unit, label }: { points: readonly Point[]; unit: string | null; label: string }) {
  if (points.length === 0) return <div class="chart chart-empty">Waiting for the first value…</div>;
  const values = points.map((point) => point.v);
  let min = Math.min(...values);
  let max = Math.max(...values);
  if (min === max) {
    // A flat line sits in the middle rather than on an edge.
    min -= Math.abs(min) * 0.1 || 1;
    max += Math.abs(max) * 0.1 || 1;
  }
  const t0 = points[0]!.t;
  const span = Math.max(points.at(-1)!.t - t0, 1);
  const x = (t: number) => PAD.left + ((t - t0) / span) * (WIDTH - PAD.left - PAD.right);
  const y = (v: number) => PAD.top + (1 - (v - min) / (max - min)) * (HEIGHT - PAD.top - PAD.bottom);
  // One sample is a level, drawn across; more are a line through them.
  const line = points.length === 1
    ? `${PAD.left},${y(points[0]!.v).toFixed(1)} ${WIDTH - PAD.right},${y(points[0]!.v).toFixed(1)}`
    : points.map((point) => `${x(point.t).toFixed(1)},${y(point.v).toFixed(1)}`).join(' ');
  const last = points.at(-1)!;
  return (
    <figure class="chart">
      <div class="chart-plot">
        {/* Stretched to the box; the strokes keep their width (non-scaling), the labels are HTML. */}
        <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} preserveAspectRatio="none" role="img" aria-label={`${label}: ${formatValue(last.v, unit)}`}>
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(max)} y2={y(max)} class="grid" />
          <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(min)} y2={y(min)} class="grid" />
          <polyline points={line} class="series" />
        </svg>
        <span class="chart-max">{formatValue(max, unit)}</span>
        <span class="chart-min">{formatValue(min, unit)}</span>
      </div>
      <figcaption>
        <span class="chart-value">{formatValue(last.v, unit)}</span>
        <span class="muted"> {label}, {points.length} sample{points.length === 1 ? '' : 's'}</span>
      </figcaption>
    </figure>
  );
}
