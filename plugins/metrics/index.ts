import { Registry, type Metric } from 'prom-client';
import { definePlugin, type PluginContext } from '../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE, METRICS, type MetricFamily } from '../../core/kits/services/index.js';
import { metricsSchema, type MetricsConfig } from './config.js';
import { familyProblems, promMetric } from './families.js';
import { processRegistry } from './process-metrics.js';
import { registryFamilies } from './registry-families.js';

/**
 * `metrics`: `GET /metrics` in the Prometheus text format (0.0.4), from prom-client with a
 * registry of its own per kernel. Every value is read when Prometheus scrapes: the registry, the
 * open streams, the contributed families; between scrapes only counters move. Plugins add their
 * families through `METRICS` (see `vigil/services`).
 */
export default definePlugin<MetricsConfig>({
  name: 'metrics',
  version: '1.0.0',
  configSchema: metricsSchema,
  create(ctx) {
    const own = registryFamilies(ctx as PluginContext<unknown>);
    let registry: Registry | undefined;
    ctx.http.route('GET', '/metrics', async (_req, res) => {
      // Kernel families first, then the process's: both end with a newline.
      const text = `${registry ? await registry.metrics() : ''}\n${await processRegistry().metrics()}`;
      res.writeHead(200, { 'content-type': Registry.PROMETHEUS_CONTENT_TYPE, 'content-length': Buffer.byteLength(text), 'cache-control': 'no-store' });
      res.end(text);
    }, { action: 'metrics.read' });
    ctx.services.contribute(API_DESCRIPTION, {
      tags: [{ name: 'ops', description: 'Vigil observed by its operators: metrics, Prometheus targets, probes, this document' }],
      paths: {
        '/metrics': {
          get: {
            tags: ['ops'],
            summary: 'Vigil\'s own metrics, in the Prometheus text format',
            description: 'Names start with vigil_ (plus the process_* and nodejs_* defaults); values are computed at scrape time. docs/operating.md, "Metrics", lists every name.',
            operationId: 'getMetrics',
            responses: {
              200: { description: 'The exposition', content: { 'text/plain; version=0.0.4': { schema: { type: 'string' } } } },
              default: ERROR_RESPONSE,
            },
          },
        },
      },
    });
    return {
      start() {
        // Contributions are all in once every plugin has set up; a bad one stops start-up here.
        registry = buildRegistry([...own, ...ctx.services.collect(METRICS)], ctx.config['per-instance']);
      },
      reload(config: MetricsConfig) {
        registry = buildRegistry([...own, ...ctx.services.collect(METRICS)], config['per-instance']);
      },
    };
  },
});

function buildRegistry(families: readonly MetricFamily[], perInstance: boolean): Registry {
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const family of families) {
    problems.push(...familyProblems(family));
    if (seen.has(family.name)) problems.push(`metric "${family.name}" is contributed twice`);
    seen.add(family.name);
  }
  if (problems.length > 0) throw new Error(problems.join('; '));
  const registry = new Registry();
  for (const family of families) {
    if (family.name === 'vigil_instance_up' && !perInstance) continue;
    // prom-client formats any object with a name and get(); its types only know its own classes.
    registry.registerMetric(promMetric(family) as unknown as Metric);
  }
  return registry;
}
