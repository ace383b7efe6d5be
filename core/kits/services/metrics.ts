import { defineToken } from '../../plugin-api.js';

/**
 * Metrics a plugin contributes to `GET /metrics`, under `METRICS`, one contribution per metric
 * family, at the setup step (in `create`). The `metrics` plugin renders them in the Prometheus text format with the
 * kernel's own; without it they cost nothing but the counting.
 *
 * The description is plain data, so a third-party plugin needs no metrics library (and no second
 * copy of one): a family says what it is, and `collect()` gives its current samples when
 * Prometheus scrapes. Values are computed then, not per event: a plugin keeps only counters (the
 * `LabelledCounts` and `LabelledHistogram` of `vigil/runtime`) and reads gauges from its own state.
 *
 * Rules the `metrics` plugin enforces when it starts (a family that breaks one stops start-up,
 * naming the family):
 * - `name` is `vigil_` plus snake_case (`[a-z_][a-z0-9_]*`), in base units (`_seconds`, `_bytes`);
 *   a counter's ends in `_total`; names are unique across all plugins;
 * - label names match `[a-zA-Z_][a-zA-Z0-9_]*`, do not start with `__`, and are never `instance`,
 *   `job` (Prometheus attaches those itself) or `le`;
 * - label values are bounded: never a raw path, URL, or anything a client chooses freely.
 */
export type MetricLabels = Readonly<Record<string, string>>;

export interface MetricSample {
  /** One value per name in the family's `labelNames`; a missing one is written as `""`. */
  readonly labels?: MetricLabels;
  readonly value: number;
}

export interface HistogramSample {
  readonly labels?: MetricLabels;
  /** Cumulative counts, one per bound of the family's `buckets`, in order (the `+Inf` bucket is `count`). */
  readonly bucketCounts: readonly number[];
  readonly sum: number;
  readonly count: number;
}

type Collected<T> = Iterable<T> | Promise<Iterable<T>>;

interface FamilyBase {
  readonly name: string;
  /** One line for `# HELP`. */
  readonly help: string;
  readonly labelNames?: readonly string[];
}

export interface CounterFamily extends FamilyBase {
  readonly type: 'counter';
  collect(): Collected<MetricSample>;
}

export interface GaugeFamily extends FamilyBase {
  readonly type: 'gauge';
  collect(): Collected<MetricSample>;
}

export interface HistogramFamily extends FamilyBase {
  readonly type: 'histogram';
  /** Upper bounds, increasing, without `+Inf`. */
  readonly buckets: readonly number[];
  collect(): Collected<HistogramSample>;
}

export type MetricFamily = CounterFamily | GaugeFamily | HistogramFamily;

export const METRICS = defineToken<MetricFamily>('vigil.metrics');
