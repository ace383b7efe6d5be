import type { HistogramSample, MetricFamily, MetricSample } from '../../core/kits/services/index.js';

const METRIC_NAME = /^[a-z_][a-z0-9_]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
/** Prometheus attaches `instance` and `job` itself (a clash becomes `exported_*`); `le` is the histogram's. */
const RESERVED_LABELS = new Set(['instance', 'job', 'le']);

/** What is wrong with a contributed family, by the rules of the METRICS contract; [] when nothing. */
export function familyProblems(family: MetricFamily): string[] {
  const problems: string[] = [];
  const name = String(family.name);
  if (!name.startsWith('vigil_') || !METRIC_NAME.test(name)) problems.push(`metric "${name}": the name must be vigil_ followed by snake_case`);
  if (family.type === 'counter' && !name.endsWith('_total')) problems.push(`metric "${name}": a counter's name ends in _total`);
  if (family.type !== 'counter' && name.endsWith('_total')) problems.push(`metric "${name}": only a counter's name ends in _total`);
  if (!['counter', 'gauge', 'histogram'].includes(family.type)) problems.push(`metric "${name}": type must be counter, gauge or histogram`);
  if (typeof family.help !== 'string' || family.help.trim() === '') problems.push(`metric "${name}": help is required`);
  if (typeof family.collect !== 'function') problems.push(`metric "${name}": collect must be a function`);
  for (const label of family.labelNames ?? []) {
    if (!LABEL_NAME.test(label) || label.startsWith('__') || RESERVED_LABELS.has(label)) {
      problems.push(`metric "${name}": label "${label}" is not allowed (names match [a-zA-Z_][a-zA-Z0-9_]*, never __*, instance, job or le)`);
    }
  }
  if (family.type === 'histogram') {
    const bounds = family.buckets ?? [];
    const increasing = bounds.every((bound, index) => Number.isFinite(bound) && (index === 0 || bound > bounds[index - 1]!));
    if (bounds.length === 0 || !increasing) problems.push(`metric "${name}": buckets must be finite, increasing upper bounds`);
  }
  return problems;
}

/** One sample line as prom-client's registry formats it (`metricName` for a histogram's parts). */
interface PromValue {
  readonly value: number;
  readonly labels: Record<string, string | number>;
  readonly metricName?: string;
}

/**
 * A contributed family as an object prom-client's Registry can hold: it asks `get()` at every
 * scrape and formats the result itself (escaping, `# HELP`/`# TYPE`). Every declared label is
 * written on every sample, so each series of a family has the same label names.
 */
export function promMetric(family: MetricFamily): { readonly name: string; get(): Promise<{ name: string; help: string; type: string; values: PromValue[] }> } {
  const labelNames = family.labelNames ?? [];
  const labelsOf = (given: Readonly<Record<string, string>> | undefined) => {
    const labels: Record<string, string> = {};
    for (const name of labelNames) labels[name] = given?.[name] ?? '';
    return labels;
  };
  return {
    name: family.name,
    async get() {
      const values: PromValue[] = [];
      if (family.type === 'histogram') {
        for (const sample of (await family.collect()) as Iterable<HistogramSample>) {
          const labels = labelsOf(sample.labels);
          family.buckets.forEach((bound, index) => {
            values.push({ metricName: `${family.name}_bucket`, labels: { ...labels, le: bound }, value: sample.bucketCounts[index] ?? sample.count });
          });
          values.push({ metricName: `${family.name}_bucket`, labels: { ...labels, le: '+Inf' }, value: sample.count });
          values.push({ metricName: `${family.name}_sum`, labels, value: sample.sum });
          values.push({ metricName: `${family.name}_count`, labels, value: sample.count });
        }
      } else {
        for (const sample of (await family.collect()) as Iterable<MetricSample>) values.push({ labels: labelsOf(sample.labels), value: sample.value });
      }
      return { name: family.name, help: family.help, type: family.type, values };
    },
  };
}
