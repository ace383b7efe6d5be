import * as yup from 'yup';
import {
  applicationTitle, capText, channelSchema, defineChannel, escapes, httpUrl, instanceText, maskedUrl, secret, sendEach, summaryText,
  type ChannelSection, type InstanceNotification, type MessageTemplates, type Notification, type OutgoingRequest,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  'api-key': secret().default(''),
  /** `https://api.eu.opsgenie.com/v2/alerts` for the EU instance. */
  url: httpUrl().default('https://api.opsgenie.com/v2/alerts'),
  tags: yup.array(yup.string().required()).default([]),
  priority: yup.string().oneOf(['', 'P1', 'P2', 'P3', 'P4', 'P5'], '${path} must be one of P1, P2, P3, P4, P5').default(''),
}, {
  messages: {
    status: '{{name}}/{{id}} is {{status}}',
    registered: '{{name}}/{{id}} has registered',
    deregistered: '{{name}}/{{id}} has deregistered',
  },
});

interface OpsgenieConfig extends ChannelSection {
  readonly 'api-key': string;
  readonly url: string;
  readonly tags: string[];
  readonly priority: string;
}

export const STORM_ALIAS = 'vigil_self-preservation';

/**
 * Opsgenie Alert API requests of a notification, one per instance: a failing status creates the
 * alert `<name>_<id>` (Opsgenie de-duplicates by alias), UP or a deregistration closes it
 * (`POST {url}/{alias}/close?identifierType=alias`). Registrations send nothing. A storm creates
 * `vigil_self-preservation`, closed only once every instance it listed has recovered.
 */
export function opsgenieRequests(notification: Notification, templates: MessageTemplates, config: OpsgenieConfig): OutgoingRequest[] {
  const base = config.url.replace(/\/+$/, '');
  const headers = { authorization: `GenieKey ${config['api-key']}` };
  const close = (alias: string, note: string): OutgoingRequest => ({
    url: `${base}/${encodeURIComponent(alias)}/close?identifierType=alias`, headers, body: { source: 'Vigil', note },
  });
  const create = (body: Record<string, unknown>): OutgoingRequest => ({
    url: base, headers, body: { ...body, source: 'Vigil', ...(config.tags.length ? { tags: config.tags } : {}), ...(config.priority ? { priority: config.priority } : {}) },
  });
  if (notification.kind === 'summary') {
    if (notification.direction !== 'lost') return notification.remaining === 0 ? [close(STORM_ALIAS, summaryText(notification))] : [];
    return [create({
      message: capText(summaryText(notification), 130),
      alias: STORM_ALIAS,
      description: summaryText(notification),
      details: { lost: String(notification.count), total: String(notification.total) },
    })];
  }
  if (notification.kind === 'application') {
    const alias = capText(`vigil_application_${notification.application}`, 512);
    const text = applicationTitle(notification, escapes.plain);
    if (notification.type === 'APPLICATION_RECOVERED') return [close(alias, capText(text, 500))];
    return [create({
      message: capText(text, 130),
      alias,
      description: capText(text, 15_000),
      details: { up: String(notification.up), required: String(notification.required), total: String(notification.total), since: notification.since },
      entity: capText(notification.application, 512),
    })];
  }
  const items = notification.kind === 'group' ? notification.items : [notification];
  return items.filter((n) => n.type !== 'REGISTERED').map((n) => {
    const alias = capText(`${n.instance.name}_${n.instance.id}`, 512);
    if (n.type === 'DEREGISTERED' || n.to === 'UP') return close(alias, capText(instanceText(n, templates, escapes.plain), 500));
    return create(alertBody(n, templates, alias));
  });
}

function alertBody(n: InstanceNotification, templates: MessageTemplates, alias: string): Record<string, unknown> {
  const details: Record<string, string> = { instanceId: n.instance.id, from: n.from, to: n.to, healthUrl: n.instance.healthUrl };
  if (n.afterMaintenance !== undefined) details.afterMaintenance = n.afterMaintenance;
  if (n.instance.managementUrl) details.managementUrl = n.instance.managementUrl;
  if (n.baseUrl) details.dashboard = `${n.baseUrl}/#/instances/${n.instance.id}`;
  return {
    message: capText(instanceText(n, templates, escapes.plain), 130),
    alias,
    description: `Instance ${capText(n.instance.name, 300)} (${n.instance.id}) went from ${n.from} to ${n.to}`,
    details,
    entity: capText(n.instance.name, 512),
  };
}

/**
 * `notify-opsgenie`: Opsgenie's Alert API (`api-key`). Atlassian stopped selling Opsgenie in
 * June 2025 and ends it on 5 April 2027; the channel is for teams still on it until then.
 */
export default defineChannel<OpsgenieConfig>({
  name: 'notify-opsgenie',
  configSchema: schema as unknown as ConfigSchema<OpsgenieConfig>,
  requires: 'api-key',
  channel: ({ config, templates }) => ({
    target: maskedUrl(config.url),
    deliver: (notification, tools) => sendEach(tools, opsgenieRequests(notification, templates, config)),
  }),
});
