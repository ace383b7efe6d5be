import { definePlugin, type ConfigSchema, type PluginContext, type Registry } from '../../core/plugin-api.js';
import { monitorSchema, type MonitorConfig } from './config-schema.js';
import { Monitor } from './monitor.js';

export type { MonitorConfig } from './config-schema.js';

// The plugin object is a module singleton shared by every kernel in the process (tests run
// many), and each lifecycle step gets a fresh context: the registry is what identifies a kernel.
const monitors = new WeakMap<Registry, Monitor>();

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
  setup(ctx: PluginContext<MonitorConfig>) {
    monitors.set(ctx.instances, new Monitor(ctx));
  },
  start(ctx: PluginContext<MonitorConfig>) {
    monitors.get(ctx.instances)?.start(ctx);
  },
  reload(ctx: PluginContext<MonitorConfig>, config: MonitorConfig) {
    return monitors.get(ctx.instances)?.reload(ctx, config);
  },
  async stop(ctx: PluginContext<MonitorConfig>) {
    const monitor = monitors.get(ctx.instances);
    monitors.delete(ctx.instances);
    await monitor?.stop();
  },
});
