import * as yup from 'yup';
import {
  applicationLines, applicationTitle, capText, channelSchema, defineChannel, escapes, groupLines, groupTitle, httpUrl, instanceText, summaryText, type ChannelSection,
  type InstanceNotification, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';

const schema = channelSchema({
  /** A Workflows webhook ("Post to a channel when a webhook request is received"); Office 365 connectors are retired. */
  'webhook-url': httpUrl(),
  titles: yup.object({
    registered: yup.string().default('Registered'),
    deregistered: yup.string().default('Deregistered'),
    'status-changed': yup.string().default('Status Changed'),
  }).exact(unknownKeys).default({}),
}, {
  messages: {
    status: '{{name}} with id {{id}} changed status from {{lastStatus}} to {{status}}',
    registered: '{{name}} with id {{id}} has registered with Vigil',
    deregistered: '{{name}} with id {{id}} has de-registered from Vigil',
  },
  // As SBA's Teams notifier: registrations and deregistrations too; and what fleet expectations find, as every channel.
  on: ['REGISTERED', 'DEREGISTERED', 'STATUS_CHANGED', 'APPLICATION_DEGRADED', 'APPLICATION_RECOVERED'],
  rateLimit: 2,
});

interface TeamsConfig extends ChannelSection {
  readonly 'webhook-url'?: string;
  readonly titles: { readonly registered: string; readonly deregistered: string; readonly 'status-changed': string };
}

type Block = Record<string, unknown>;

const text = (value: string, extra: Record<string, unknown> = {}): Block => ({ type: 'TextBlock', text: value, wrap: true, ...extra });

/**
 * The Adaptive Card envelope Teams Workflows webhooks take (card version 1.4, full width): a
 * coloured title, the instance name, the message and a fact set, as SBA's card. Values are passed
 * through the Teams escaper, which breaks anything that could form a link or a mention.
 */
export function teamsPayload(notification: Notification, templates: MessageTemplates, titles: TeamsConfig['titles']): Record<string, unknown> {
  let body: Block[];
  if (notification.kind === 'instance') body = instanceBlocks(notification, templates, titles);
  else if (notification.kind === 'group') {
    body = [text(groupTitle(notification), { size: 'Large', weight: 'Bolder', color: 'Attention' }), ...groupLines(notification, escapes.teams).map((line) => text(line))];
  } else if (notification.kind === 'application') {
    const color = notification.type === 'APPLICATION_DEGRADED' ? 'Attention' : 'Good';
    body = [text(applicationTitle(notification, escapes.teams), { size: 'Large', weight: 'Bolder', color }), ...applicationLines(notification, escapes.teams).map((line) => text(line))];
  } else {
    body = [text(summaryText(notification), { size: 'Large', weight: 'Bolder', color: notification.direction === 'lost' ? 'Attention' : 'Good' })];
  }
  return {
    type: 'message',
    attachments: [{
      contentType: 'application/vnd.microsoft.card.adaptive',
      contentUrl: null,
      content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body, msteams: { width: 'Full' } },
    }],
  };
}

function instanceBlocks(n: InstanceNotification, templates: MessageTemplates, titles: TeamsConfig['titles']): Block[] {
  const title = n.type === 'REGISTERED' ? titles.registered : n.type === 'DEREGISTERED' ? titles.deregistered : titles['status-changed'];
  const color = n.type !== 'STATUS_CHANGED' ? 'Accent' : n.to === 'UP' ? 'Good' : 'Attention';
  const facts = [
    ['Status', n.to],
    ['Service URL', n.instance.serviceUrl],
    ['Health URL', n.instance.healthUrl],
    ['Management URL', n.instance.managementUrl],
    ['Source', n.instance.source],
  ].filter((fact): fact is [string, string] => typeof fact[1] === 'string' && fact[1].trim() !== '')
    .map(([factTitle, value]) => ({ title: factTitle, value: escapes.teams(capText(value, 300)) }));
  return [
    text(`${n.reminder > 0 ? 'Reminder: ' : ''}${title}`, { size: 'Large', weight: 'Bolder', color }),
    text(escapes.teams(capText(n.instance.name, 300)), { size: 'Medium', weight: 'Bolder' }),
    text(instanceText({ ...n, reminder: 0 }, templates, escapes.teams)),
    { type: 'FactSet', facts },
  ];
}

/** `notify-teams`: a Microsoft Teams Workflows webhook (`webhook-url`). */
export default defineChannel<TeamsConfig>({
  name: 'notify-teams',
  configSchema: schema as unknown as ConfigSchema<TeamsConfig>,
  requires: 'webhook-url',
  channel: ({ config, value: url, templates }) => ({
    deliver: (notification, tools) => tools.send({ url, body: teamsPayload(notification, templates, config.titles) }),
  }),
});
