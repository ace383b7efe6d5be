import { definePlugin } from '../../core/plugin-api.js';
import { METRICS } from '../../core/kits/services/index.js';
import { streamsApi } from './api-description.js';
import { configSchema, type SseConfig } from './config-schema.js';
import { StreamHub } from './hub.js';
import { streamRoutes } from './routes.js';

/**
 * `sse`: live Server-Sent Event streams of instance events and application snapshots, each
 * message carrying the event's `seq` as its `id:` so a client can resume with `Last-Event-ID`.
 */
export default definePlugin<SseConfig>({
  name: 'sse',
  configSchema,
  create(ctx) {
    const hub = new StreamHub({
      instances: ctx.registry,
      views: ctx.views,
      log: ctx.log,
      maxBufferedBytes: ctx.config['max-buffered-bytes'],
    });
    streamRoutes(ctx, hub);
    streamsApi(ctx.services);
    ctx.services.contribute(METRICS, { name: 'vigil_sse_subscribers', help: 'Server-Sent Event streams open now', type: 'gauge', collect: () => [{ value: hub.size }] });
    ctx.bus.on('instance.changed', (change) => hub.publish(change));
    ctx.bus.on('instances.reloaded', () => hub.catchUp());
    // The signal aborts as the kernel begins to stop, before plugins stop: streams end first.
    ctx.signal.addEventListener('abort', () => hub.close(), { once: true });
    return { start: () => hub.startPings(ctx.config['ping-interval']), stop: () => hub.close() };
  },
});
