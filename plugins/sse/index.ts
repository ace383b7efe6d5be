import { METRICS, definePlugin } from '../../core/plugin-api.js';
import { streamsApi } from './api-description.js';
import { configSchema, type SseConfig } from './config-schema.js';
import { StreamHub } from './hub.js';
import { streamRoutes } from './routes.js';

/**
 * The hub of each running kernel. Hooks may receive a fresh context object each time, and one
 * plugin object can serve several kernels in one process (tests), so the hub is keyed by the
 * kernel's abort signal: one per kernel, the same in every hook.
 */
const hubs = new WeakMap<AbortSignal, StreamHub>();

/**
 * `sse`: live Server-Sent Event streams of instance events and application snapshots, each
 * message carrying the event's `seq` as its `id:` so a client can resume with `Last-Event-ID`.
 */
export default definePlugin<SseConfig>({
  name: 'sse',
  configSchema,
  setup(ctx) {
    const hub = new StreamHub({
      instances: ctx.instances,
      views: ctx.views,
      log: ctx.log,
      maxBufferedBytes: ctx.config['max-buffered-bytes'],
    });
    hubs.set(ctx.signal, hub);
    streamRoutes(ctx, hub);
    streamsApi(ctx.services);
    ctx.services.contribute(METRICS, { name: 'vigil_sse_subscribers', help: 'Server-Sent Event streams open now', type: 'gauge', collect: () => [{ value: hub.size }] });
    ctx.bus.on('instance.changed', (change) => hub.publish(change));
    ctx.bus.on('instances.reloaded', () => hub.catchUp());
    // The signal aborts as the kernel begins to stop, before plugins stop: streams end first.
    ctx.signal.addEventListener('abort', () => hub.close(), { once: true });
  },
  start(ctx) {
    hubs.get(ctx.signal)?.startPings(ctx.config['ping-interval']);
  },
  stop(ctx) {
    hubs.get(ctx.signal)?.close();
    hubs.delete(ctx.signal);
  },
});
