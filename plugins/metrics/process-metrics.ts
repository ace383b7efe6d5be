import { Registry, collectDefaultMetrics } from 'prom-client';

let shared: Registry | undefined;

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
  }
  return shared;
}
