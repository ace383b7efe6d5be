import {
  applicationTitle, type ApplicationNotification, capText, channelSchema, defineChannel, escapes, httpUrl, instanceText, maskedUrl, secret, sendEach, summaryText,
  type ChannelSection, type InstanceNotification, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  'routing-key': secret().default(''),
  url: httpUrl().default('https://events.pagerduty.com/v2/enqueue'),
}, {
  messages: {
    status: '{{name}}/{{id}} is {{status}}',
    registered: '{{name}}/{{id}} has registered',
    deregistered: '{{name}}/{{id}} has deregistered',
  },
  // Events API v2 takes about 120 events a minute per routing key.
  rateLimit: 2,
});

interface PagerDutyConfig extends ChannelSection {
  readonly 'routing-key': string;
  readonly url: string;
}

const SEVERITY: Readonly<Record<string, string>> = { DOWN: 'critical', OFFLINE: 'error', OUT_OF_SERVICE: 'warning' };
/** The dedup key of the self-preservation incident. */
export const STORM_KEY = 'vigil/self-preservation';

/**
 * The Events API v2 events of a notification, one per instance (a group is sent as its
 * instances' events, each with its own `dedup_key`, so every recovery resolves its own incident).
 * A change to UP, or a deregistration, resolves `<name>/<id>`; any other status triggers it.
 * Registrations are not PagerDuty incidents and send nothing. A storm triggers
 * `vigil/self-preservation`, resolved only once every instance it listed has recovered
 * (`remaining` 0): a return that leaves some failing sends nothing, they are told on their own.
 */
export function pagerDutyEvents(notification: Notification, templates: MessageTemplates, routingKey: string): Record<string, unknown>[] {
  if (notification.kind === 'summary') {
    if (notification.direction !== 'lost') return notification.remaining === 0 ? [{ routing_key: routingKey, event_action: 'resolve', dedup_key: STORM_KEY }] : [];
    return [{
      routing_key: routingKey,
      event_action: 'trigger',
      dedup_key: STORM_KEY,
      payload: {
        summary: summaryText(notification),
        source: 'vigil',
        severity: 'critical',
        timestamp: notification.timestamp,
        class: 'self-preservation',
        custom_details: { lost: notification.count, total: notification.total, instances: notification.instances.map((i) => `${i.name}/${i.id}`) },
      },
      client: 'Vigil',
      ...(notification.baseUrl ? { client_url: `${notification.baseUrl}/` } : {}),
    }];
  }
  if (notification.kind === 'application') return [applicationEvent(notification, routingKey)];
  const items = notification.kind === 'group' ? notification.items : [notification];
  return items.filter((n) => n.type !== 'REGISTERED').map((n) => instanceEvent(n, templates, routingKey));
}

/** A fleet expectation: DEGRADED triggers `vigil/application/<name>`, RECOVERED resolves it. */
function applicationEvent(n: ApplicationNotification, routingKey: string): Record<string, unknown> {
  const dedupKey = capText(`vigil/application/${n.application}`, 255);
  if (n.type === 'APPLICATION_RECOVERED') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: capText(applicationTitle(n, escapes.plain), 1024),
      source: 'vigil',
      severity: n.disappeared ? 'critical' : 'error',
      timestamp: n.timestamp,
      component: n.application,
      class: 'fleet expectation',
      custom_details: { up: n.up, required: n.required, total: n.total, since: n.since, instances: n.instances.map((i) => `${i.id} ${i.status}`) },
    },
    client: 'Vigil',
    ...(n.baseUrl ? { client_url: `${n.baseUrl}/#/applications/${encodeURIComponent(n.application)}` } : {}),
  };
}

function instanceEvent(n: InstanceNotification, templates: MessageTemplates, routingKey: string): Record<string, unknown> {
  const dedupKey = `${n.instance.name}/${n.instance.id}`;
  if (n.type === 'DEREGISTERED' || n.to === 'UP') return { routing_key: routingKey, event_action: 'resolve', dedup_key: dedupKey };
  return {
    routing_key: routingKey,
    event_action: 'trigger',
    dedup_key: dedupKey,
    payload: {
      summary: capText(instanceText(n, templates, escapes.plain), 1024),
      source: hostOf(n.instance.healthUrl),
      severity: SEVERITY[n.to] ?? 'warning',
      timestamp: n.timestamp,
      component: n.instance.name,
      class: 'instance status',
      custom_details: {
        instanceId: n.instance.id, from: n.from, to: n.to, healthUrl: n.instance.healthUrl,
        managementUrl: n.instance.managementUrl, serviceUrl: n.instance.serviceUrl, reminder: n.reminder,
        ...(n.afterMaintenance !== undefined ? { afterMaintenance: n.afterMaintenance } : {}),
      },
    },
    client: 'Vigil',
    ...(n.baseUrl ? { client_url: `${n.baseUrl}/#/instances/${n.instance.id}` } : {}),
    links: [{ href: n.instance.healthUrl, text: 'Health endpoint' }],
  };
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}

/** `notify-pagerduty`: PagerDuty Events API v2 (`routing-key`; `url` for a proxy or a test receiver). */
export default defineChannel<PagerDutyConfig>({
  name: 'notify-pagerduty',
  configSchema: schema as unknown as ConfigSchema<PagerDutyConfig>,
  requires: 'routing-key',
  channel: ({ config: { url }, value: key, templates }) => ({
    target: maskedUrl(url),
    deliver: (notification, tools) => sendEach(tools, pagerDutyEvents(notification, templates, key).map((body) => ({ url, body }))),
  }),
});
