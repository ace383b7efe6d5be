import * as yup from 'yup';
import {
  applicationLines, applicationTitle, capText, channelSchema, defineChannel, escapes, groupLines, groupTitle, httpUrl, instanceText, joinLines, summaryText,
  type ChannelSection, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  'webhook-url': httpUrl(),
  // Honoured by legacy (custom-integration) webhooks only; app webhooks post as the app, where they were made.
  username: yup.string().default(''),
  channel: yup.string().default(''),
  icon: yup.string().default(''),
}, {
  messages: {
    status: '*{{name}}* ({{id}}) is *{{status}}*',
    registered: '*{{name}}* ({{id}}) has registered',
    deregistered: '*{{name}}* ({{id}}) has deregistered',
  },
  // About one message a second per webhook (https://api.slack.com/docs/rate-limits).
  rateLimit: 1,
});

interface SlackConfig extends ChannelSection {
  readonly 'webhook-url'?: string;
  readonly username: string;
  readonly channel: string;
  readonly icon: string;
}

/**
 * Slack's message for a notification: Block Kit (one mrkdwn section) with `text` as the
 * fallback shown in notifications. Every value is escaped for mrkdwn (`&`, `<`, `>`), so a name
 * such as `<!channel>` is shown, never acted on.
 */
export function slackPayload(notification: Notification, templates: MessageTemplates, extra: Record<string, string>): Record<string, unknown> {
  let text: string;
  if (notification.kind === 'instance') text = instanceText(notification, templates, escapes.mrkdwn);
  else if (notification.kind === 'group') text = joinLines([`*${groupTitle(notification)}*`, ...groupLines(notification, escapes.mrkdwn)], 3000);
  else if (notification.kind === 'application') text = joinLines([`*${applicationTitle(notification, escapes.mrkdwn)}*`, ...applicationLines(notification, escapes.mrkdwn)], 3000);
  else text = `*${summaryText(notification)}*`;
  // A section's text is capped at 3,000 characters; a cut mid-entity would show as text, never as markup.
  const capped = capText(text, 3000);
  return { ...extra, text: capped, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: capped } }] };
}

/** `notify-slack`: an incoming webhook (`webhook-url`), paced at one message a second by default. */
export default defineChannel<SlackConfig>({
  name: 'notify-slack',
  configSchema: schema as unknown as ConfigSchema<SlackConfig>,
  requires: 'webhook-url',
  channel({ config, value: url, templates }) {
    const extra: Record<string, string> = {};
    if (config.username) extra.username = config.username;
    if (config.channel) extra.channel = config.channel;
    if (config.icon) extra.icon_emoji = config.icon;
    return { deliver: (notification, tools) => tools.send({ url, body: slackPayload(notification, templates, extra) }) };
  },
});
