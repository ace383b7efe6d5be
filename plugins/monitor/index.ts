import { definePlugin, type ConfigSchema, type PluginContext } from '../../core/plugin-api.js';
import { monitorSchema, type MonitorConfig } from './config-schema.js';
import { Monitor } from './monitor.js';

export type { MonitorConfig } from './config-schema.js';

/**
 * `monitor`: status and info polling and endpoint detection (reference §4-§6), and the shared
 * client for calls to instances (`INSTANCE_HTTP`).
 *
 * Vigil's choices beyond SBA: each instance is polled on its own phase of the interval (no
 * thundering herd), a failing (OFFLINE) instance backs off exponentially up to
 * `status-max-backoff` / `info-max-backoff`, checks in flight are capped by
 * `max-concurrent-checks` (those an event asked for also by `max-concurrent-follow-ups`), flaps
 * can be damped (`failures-before-down`, `successes-before-up`), and endpoints are detected
 * again every `detection-interval`.
 */
export default definePlugin<MonitorConfig>({
  name: 'monitor',
  version: '0.1.0',
  configSchema: monitorSchema as unknown as ConfigSchema<MonitorConfig>,
  create(ctx: PluginContext<MonitorConfig>) {
    const monitor = new Monitor(ctx);
    return { start: () => monitor.start(), stop: () => monitor.stop(), reload: (config: MonitorConfig) => monitor.reload(config) };
  },
});
