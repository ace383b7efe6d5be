import { definePlugin, type ConfigSchema, type PluginContext, type VigilPlugin } from '../../plugin-api.js';
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
  return definePlugin<DiscoveryConfig & Own>({
    name: definition.name,
    ...(definition.version !== undefined ? { version: definition.version } : {}),
    configSchema: discoverySchema(definition.keys, definition.refreshInterval) as unknown as ConfigSchema<DiscoveryConfig & Own>,
    create(ctx: PluginContext<DiscoveryConfig & Own>) {
      const runner = new DiscoveryRunner(ctx, definition as DiscoverySourceDefinition<unknown>);
      // In a cluster every node hears it; only the lease holder's runner acts on it.
      const unsubscribe = ctx.bus.on('instances.refresh-requested', () => runner.request('refresh'));
      return {
        start: () => runner.start(),
        async stop() {
          unsubscribe();
          await runner.stop();
        },
      };
    },
  });
}
