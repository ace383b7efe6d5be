import { Registry, collectDefaultMetrics } from 'prom-client';

let shared: Registry | undefined;

/** Gauges prom-client names like counters; Prometheus's lint refuses them, and their per-type twins stay. */
const MISNAMED = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/**
 * prom-client's process and Node.js metrics (`process_*`, `nodejs_*`, under their usual names so
 * existing Node.js dashboards work). They describe the process, not a kernel, and collecting
 * them starts an event-loop delay monitor and a GC observer that cannot be stopped again: so
 * there is one registry per process, created by the first `metrics` plugin that starts and shared
 * by every kernel after it (tests run many).
 */
export function processRegistry(): Registry {
  if (!shared) {
    shared = new Registry();
    collectDefaultMetrics({ register: shared });
    for (const name of MISNAMED) shared.removeSingleMetric(name);
  }
  return shared;
}
