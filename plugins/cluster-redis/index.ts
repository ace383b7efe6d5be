import { EVENT_LOG } from '../../core/event-log.js';
import { EVENT_OUTBOX, LEASES, NODE_ID, OWNERSHIP, SHARED_STATE, definePlugin, messageOf, type ConfigSchema, type PluginContext } from '../../core/plugin-api.js';
import { ClusterNode } from './cluster-node.js';
import { contributeClusterMetrics } from './cluster-metrics.js';
import { clusterRedisSchema, nodeIdOf, type ClusterRedisConfig } from './config.js';

/**
 * `cluster-redis`: several Vigil nodes share one registry in Redis. Any node serves the whole
 * API; each instance is checked by exactly one live node (rendezvous hashing over the live set);
 * the history survives restarts when Redis persists it. It provides the kernel's seams: the
 * event log, ownership, leases, shared state, the notification outbox and the node id.
 */
export default definePlugin<ClusterRedisConfig>({
  name: 'cluster-redis',
  version: '1.0.0',
  configSchema: clusterRedisSchema as unknown as ConfigSchema<ClusterRedisConfig>,
  create(ctx) {
    const nodeId = nodeIdOf(ctx.config, ctx.settings.port);
    const node = new ClusterNode(ctx, nodeId);
    ctx.services.provide(EVENT_LOG, node);
    ctx.services.provide(OWNERSHIP, node.membership);
    ctx.services.provide(LEASES, node.membership);
    ctx.services.provide(SHARED_STATE, node.sharedState);
    ctx.services.provide(EVENT_OUTBOX, node.outbox);
    ctx.services.provide(NODE_ID, nodeId);
    contributeClusterMetrics(ctx as PluginContext<unknown>, () => node);
    // POST /applications on any node reaches every node: each re-checks what it owns, and the
    // holder of each discovery lease runs its source.
    ctx.bus.on('instances.refresh-requested', ({ reason, remote }) => {
      if (remote) return;
      node.link.publish(node.keys.refreshChannel, JSON.stringify({ node: nodeId, reason })).catch((error: unknown) => {
        ctx.log.warn(`could not pass the refresh to the other nodes: ${messageOf(error)}`);
      });
    });
    return {
      async start() {
        await node.link.subscribe(node.keys.refreshChannel, (message) => {
          try {
            const { node: from, reason } = JSON.parse(message) as { node: string; reason: string };
            if (from !== node.nodeId) ctx.bus.emit('instances.refresh-requested', { reason: `${reason} (on ${from})`, remote: true });
          } catch {
            ctx.log.debug('ignored a malformed refresh message');
          }
        });
        node.startMaintenance();
      },
      stop: () => node.leave(),
    };
  },
});
