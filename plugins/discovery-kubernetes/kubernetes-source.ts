import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { DiscoverySource, SourceContext } from '../../core/kits/discovery/index.js';
import { KubeApi, type KubeConnection } from './kube-api.js';
import { ResourceWatcher } from './resource-watcher.js';
import { toEntries } from './to-entries.js';

export interface KubernetesKeys extends KubeConnection {
  /** Namespaces to read; default the pod's own (the service account's `namespace` file), else `default`. */
  readonly namespaces?: readonly string[];
  /** Which Services (e.g. `spring-boot=true`); their EndpointSlices are joined by service name. */
  readonly 'label-selector': string;
  readonly 'include-not-ready': boolean;
  /** Watch for changes (default), or only list every `refresh-interval`. */
  readonly watch: boolean;
}

/**
 * Services and EndpointSlices (discovery.k8s.io/v1; the Endpoints API is deprecated since 1.33)
 * of the configured namespaces. EndpointSlices are read without the label selector, which
 * selects Services: whether a slice carries its Service's labels depends on the controller that
 * made it. While this node holds the lease both are watched; a run a watch triggers is answered
 * from what the watches hold, any other run lists afresh (which also restarts the watches).
 */
export function kubernetesSource(context: SourceContext<KubernetesKeys>): DiscoverySource {
  const { config, log } = context;
  const api = new KubeApi(config);
  const namespaces = config.namespaces ?? [podNamespace(config['token-file'])];
  const watchers = namespaces.map((namespace) => ({
    services: new ResourceWatcher(api, `/api/v1/namespaces/${encodeURIComponent(namespace)}/services`, config['label-selector'], log),
    slices: new ResourceWatcher(api, `/apis/discovery.k8s.io/v1/namespaces/${encodeURIComponent(namespace)}/endpointslices`, '', log),
  }));
  const all = watchers.flatMap((pair) => [pair.services, pair.slices]);
  let watching = false;
  const derive = () => watchers.flatMap((pair) => toEntries(pair.services.items.values(), pair.slices.items.values(), config['include-not-ready']));

  return {
    async list({ signal, reason }) {
      if (reason === 'change' && watching && all.every((watcher) => watcher.synced)) return derive();
      await Promise.all(all.map((watcher) => watcher.list(signal)));
      return derive();
    },
    watch(changed, signal) {
      if (!config.watch) return;
      watching = true;
      signal.addEventListener('abort', () => { watching = false; }, { once: true });
      for (const watcher of all) void watcher.run(changed, signal);
    },
    close: () => api.close(),
  };
}

/** The namespace of the pod's service account, next to its token; `default` outside a pod. */
function podNamespace(tokenFile: string): string {
  try {
    return readFileSync(join(dirname(tokenFile), 'namespace'), 'utf8').trim() || 'default';
  } catch {
    return 'default';
  }
}
