import { type Services } from '../../core/plugin-api.js';
import { METRICS, type MetricSample } from '../../core/kits/services/index.js';
import { channelOf } from './routing/target-name.js';
import type { ChannelStats, PipelineStats } from './stats.js';

type Outcome = 'delivered' | 'failed' | 'superseded' | 'coalesced' | 'dropped';
const OUTCOMES: readonly Outcome[] = ['delivered', 'failed', 'superseded', 'coalesced', 'dropped'];

/**
 * What `notify` tells the `metrics` plugin, read from the counters the pipeline keeps anyway:
 * deliveries by outcome, retries and the queue of each channel, and what the pipeline kept back.
 * Each series has the channel (the plugin) and the target (`notify-slack`, its default, or
 * `notify-slack:payments`): both come from the config, so the label values are bounded.
 */
export function contributeNotifyMetrics(services: Services, stats: PipelineStats): void {
  const perChannel = (read: (channel: ChannelStats) => number, extra: Record<string, string> = {}): MetricSample[] =>
    [...(stats.channels)].map(([target, counts]) => ({ labels: { channel: channelOf(target), target, ...extra }, value: read(counts) }));
  services.contribute(METRICS, {
    name: 'vigil_notifications_total',
    help: 'Notifications each channel finished with, by outcome (delivered, failed: given up, superseded: a reminder replaced by a newer state, coalesced into a newer one of the same instance, dropped by a full queue).',
    type: 'counter',
    labelNames: ['channel', 'target', 'outcome'],
    collect: () => OUTCOMES.flatMap((outcome) => perChannel((channel) => channel[outcome], { outcome })),
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_retries_total',
    help: 'Delivery attempts that failed and were tried again, per channel.',
    type: 'counter',
    labelNames: ['channel', 'target'],
    collect: () => perChannel((channel) => channel.retries),
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_queue_length',
    help: 'Notifications waiting or in flight, per channel.',
    type: 'gauge',
    labelNames: ['channel', 'target'],
    collect: () => perChannel((channel) => channel.queued),
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_changes_kept_back_total',
    help: 'Status changes the pipeline did not send: silenced by a filter, undone within the hold, folded into a later one by the per-instance rate, or held back by a maintenance window, or matched by no route (unrouted).',
    type: 'counter',
    labelNames: ['reason'],
    collect: () => [
      { labels: { reason: 'filtered' }, value: stats.filtered }, { labels: { reason: 'held' }, value: stats.held },
      { labels: { reason: 'rate-limited' }, value: stats.rateLimited }, { labels: { reason: 'in-maintenance' }, value: stats.inMaintenance },
      { labels: { reason: 'unrouted' }, value: stats.unrouted },
    ],
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_summaries_total',
    help: 'Storm summaries sent instead of one message per instance (lost, regained, and all back).',
    type: 'counter',
    collect: () => [{ value: stats.summaries }],
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_expectations_total',
    help: 'Fleet expectation notifications (APPLICATION_DEGRADED, APPLICATION_RECOVERED) handed to the channels.',
    type: 'counter',
    collect: () => [{ value: stats.expectations }],
  });
  services.contribute(METRICS, {
    name: 'vigil_notification_reminders_total',
    help: 'Reminders sent for instances that stayed in a reminder status.',
    type: 'counter',
    collect: () => [{ value: stats.reminders }],
  });
}
