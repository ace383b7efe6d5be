import { defineDiscoverySource, type Discovered, type DiscoverySourceDefinition, type RunReason } from '../../../../core/kits/discovery/index.js';
import type { VigilPlugin } from '../../../../core/plugin-api.js';

/** What a scripted source answers next: a list, an error, or nothing until the run is aborted. */
export interface Script {
  entries: Discovered[];
  error: Error | undefined;
  hang: boolean;
  /** The reason of every `list` call, in order. */
  readonly calls: RunReason[];
}

/**
 * A discovery source whose answers the test sets: the core's behaviour (filters, conversion,
 * diff, guards, triggers, leases) tested apart from any real protocol.
 */
export function scriptedSource(name = 'discovery-script', refreshInterval = 3_600_000): { plugin: VigilPlugin<never>; script: Script; changed(): void } {
  const script: Script = { entries: [], error: undefined, hang: false, calls: [] };
  let signalChange: (() => void) | undefined;
  const definition: DiscoverySourceDefinition<Record<string, never>> = {
    name,
    refreshInterval,
    keys: {},
    create: () => ({
      async list({ reason, signal }) {
        script.calls.push(reason);
        if (script.hang) {
          await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
        }
        if (script.error) throw script.error;
        return [...script.entries];
      },
      watch(changed) {
        signalChange = changed;
      },
    }),
  };
  return {
    plugin: defineDiscoverySource(definition) as unknown as VigilPlugin<never>,
    script,
    changed: () => signalChange?.(),
  };
}

/** A service entry on a made-up host: `name` at `http://<host>:8080`. */
export function service(name: string, host: string, metadata: Record<string, string> = {}): Discovered {
  return { name, uri: `http://${host}:8080`, metadata };
}

export const healthOf = (host: string) => `http://${host}:8080/actuator/health`;
