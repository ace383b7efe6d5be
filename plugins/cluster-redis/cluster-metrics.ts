import { READINESS, type PluginContext } from '../../core/plugin-api.js';
import { METRICS } from '../../core/kits/services/index.js';
import type { ClusterNode } from './cluster-node.js';

/**
 * What `cluster-redis` tells the `metrics` plugin and the readiness probe: live nodes, the
 * instances this node owns, whether Redis answers, and how far this node's copy is behind the
 * cluster's newest event. All read from state the node keeps, at scrape time.
 */
export function contributeClusterMetrics(ctx: PluginContext<unknown>, node: () => ClusterNode | undefined): void {
  ctx.services.contribute(READINESS, {
    name: 'redis',
    check: () => {
      const link = node()?.link;
      if (!link || link.up) return { ready: true };
      return { ready: false, reason: `Redis unreachable for ${Math.round((Date.now() - link.downSince) / 1000)} s` };
    },
  });
  ctx.services.contribute(METRICS, {
    name: 'vigil_cluster_nodes',
    help: 'Live nodes of the cluster, as this node last saw them.',
    type: 'gauge',
    collect: () => [{ value: node()?.membership.live.length ?? 0 }],
  });
  ctx.services.contribute(METRICS, {
    name: 'vigil_cluster_owned_instances',
    help: 'Registered instances this node checks.',
    type: 'gauge',
    collect: () => {
      const membership = node()?.membership;
      return [{ value: membership ? ctx.registry.list().filter((instance) => membership.owns(instance.id)).length : 0 }];
    },
  });
  ctx.services.contribute(METRICS, {
    name: 'vigil_cluster_held_histories',
    help: 'Instances whose whole history this node holds in memory: those it checks (the others it reads from Redis).',
    type: 'gauge',
    collect: () => [{ value: node()?.history.heldHistories ?? 0 }],
  });
  ctx.services.contribute(METRICS, {
    name: 'vigil_cluster_redis_up',
    help: '1 while Redis answers this node, 0 while it is unreachable.',
    type: 'gauge',
    collect: () => [{ value: node()?.link.up ? 1 : 0 }],
  });
  ctx.services.contribute(METRICS, {
    name: 'vigil_cluster_feed_lag_events',
    help: 'Events recorded in the cluster that this node has not applied yet (as of its last look at the feed).',
    type: 'gauge',
    collect: () => [{ value: node()?.history.lag(ctx.registry.lastSeq) ?? 0 }],
  });
}
