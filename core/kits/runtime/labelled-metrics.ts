import type { HistogramSample, MetricLabels, MetricSample } from '../services/index.js';

/**
 * Counts for a `METRICS` contribution, kept by the plugin that contributes it: what it counts on
 * its hot path is a Map update, and `samples()` turns them into the family's samples when
 * Prometheus scrapes. No metrics library needed.
 */
const SEPARATOR = '\u0000';

/** Counters per label set: `inc()` on the hot path is one Map update; `samples()` at scrape time. */
export class LabelledCounts {
  readonly #counts = new Map<string, { labels: MetricLabels; value: number }>();

  constructor(private readonly labelNames: readonly string[] = []) {}

  inc(labels: MetricLabels = {}, by = 1): void {
    const key = this.labelNames.map((name) => labels[name] ?? '').join(SEPARATOR);
    const entry = this.#counts.get(key);
    if (entry) entry.value += by;
    else this.#counts.set(key, { labels, value: by });
  }

  samples(): MetricSample[] {
    return [...this.#counts.values()].map(({ labels, value }) => ({ labels, value }));
  }
}

/** A histogram per label set, with fixed bounds; `observe()` is a few additions. */
export class LabelledHistogram {
  readonly #series = new Map<string, { labels: MetricLabels; counts: number[]; sum: number; count: number }>();

  constructor(readonly buckets: readonly number[], private readonly labelNames: readonly string[] = []) {}

  observe(value: number, labels: MetricLabels = {}): void {
    const key = this.labelNames.map((name) => labels[name] ?? '').join(SEPARATOR);
    let series = this.#series.get(key);
    if (!series) this.#series.set(key, (series = { labels, counts: this.buckets.map(() => 0), sum: 0, count: 0 }));
    // Only the first bucket that holds the value; samples() makes the counts cumulative.
    const index = this.buckets.findIndex((bound) => value <= bound);
    if (index >= 0) series.counts[index]! += 1;
    series.sum += value;
    series.count += 1;
  }

  samples(): HistogramSample[] {
    return [...this.#series.values()].map(({ labels, counts, sum, count }) => {
      let running = 0;
      return { labels, bucketCounts: counts.map((n) => (running += n)), sum, count };
    });
  }
}
