import type { ConfigSchema, PluginContext, Registry, VigilPlugin } from '../../plugin-api.js';
import { discoverySchema, type DiscoveryConfig } from './config.js';
import { DiscoveryRunner } from './runner.js';
import type { DiscoverySourceDefinition } from './types.js';

/**
 * Makes a discovery source a plugin. The source only says what it lists now (`list`, and
 * optionally `watch`); everything sources share lives here, in one place, so every built-in and
 * third-party source behaves the same: the common keys (CONTRACT §5) beside the source's own,
 * SBA's filters and conversion, the diff against what this source registered before, the guards
 * (a failed run removes nothing; a large removal waits for the next run to agree), the info line
 * per run that changed something, runs on `POST /applications`, and runs only on the node that
 * holds the lease named after the plugin, with its fencing token on every write.
 */
export function defineDiscoverySource<Own>(definition: DiscoverySourceDefinition<Own>): VigilPlugin<DiscoveryConfig & Own> {
  // The plugin object is shared by every kernel in the process (tests run many); the registry
  // identifies a kernel, as in the monitor.
  const runners = new WeakMap<Registry, DiscoveryRunner>();
  const unsubscribe = new WeakMap<Registry, () => void>();
  return {
    name: definition.name,
    ...(definition.version !== undefined ? { version: definition.version } : {}),
    configSchema: discoverySchema(definition.keys, definition.refreshInterval) as unknown as ConfigSchema<DiscoveryConfig & Own>,
    setup(ctx: PluginContext<DiscoveryConfig & Own>) {
      const runner = new DiscoveryRunner(ctx, definition as DiscoverySourceDefinition<unknown>);
      runners.set(ctx.instances, runner);
      // In a cluster every node hears it; only the lease holder's runner acts on it.
      unsubscribe.set(ctx.instances, ctx.bus.on('instances.refresh-requested', () => runner.request('refresh')));
    },
    start(ctx: PluginContext<DiscoveryConfig & Own>) {
      runners.get(ctx.instances)?.start();
    },
    async stop(ctx: PluginContext<DiscoveryConfig & Own>) {
      unsubscribe.get(ctx.instances)?.();
      const runner = runners.get(ctx.instances);
      runners.delete(ctx.instances);
      await runner?.stop();
    },
  };
}
