import * as yup from 'yup';
import {
  applicationLines, applicationTitle, capText, channelSchema, defineChannel, escapes, groupLines, groupTitle, httpUrl, instanceText, joinLines, summaryText,
  type ChannelSection, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  'webhook-url': httpUrl(),
  username: yup.string().default(''),
  'avatar-url': httpUrl().default(''),
  tts: yup.boolean().default(false),
}, {
  messages: {
    // SBA copied Slack's `*x*`, which is italic in Discord; bold is `**x**`.
    status: '**{{name}}** ({{id}}) is **{{status}}**',
    registered: '**{{name}}** ({{id}}) has registered',
    deregistered: '**{{name}}** ({{id}}) has deregistered',
  },
  // Discord allows about 30 messages a minute per webhook.
  rateLimit: 0.5,
});

interface DiscordConfig extends ChannelSection {
  readonly 'webhook-url'?: string;
  readonly username: string;
  readonly 'avatar-url': string;
  readonly tts: boolean;
}

/**
 * Discord's webhook body: `content` (markdown, every value escaped, at most 2,000 characters) and
 * `allowed_mentions: {parse: []}`, so no text in it can mention anyone.
 */
export function discordPayload(notification: Notification, templates: MessageTemplates, config: DiscordConfig): Record<string, unknown> {
  let content: string;
  if (notification.kind === 'instance') content = instanceText(notification, templates, escapes.markdown);
  else if (notification.kind === 'group') content = joinLines([`**${groupTitle(notification)}**`, ...groupLines(notification, escapes.markdown)], 2000);
  else if (notification.kind === 'application') content = joinLines([`**${applicationTitle(notification, escapes.markdown)}**`, ...applicationLines(notification, escapes.markdown)], 2000);
  else content = `**${summaryText(notification)}**`;
  return {
    content: capText(content, 2000),
    tts: config.tts,
    ...(config.username ? { username: config.username } : {}),
    ...(config['avatar-url'] ? { avatar_url: config['avatar-url'] } : {}),
    allowed_mentions: { parse: [] },
  };
}

/** Discord answers 429 with `retry_after` in seconds in its body. */
export function discordRetryAfter(json: unknown): number | undefined {
  const value = (json as { retry_after?: unknown } | null)?.retry_after;
  return typeof value === 'number' && value >= 0 ? Math.ceil(value * 1000) : undefined;
}

/** `notify-discord`: a Discord channel webhook (`webhook-url`). */
export default defineChannel<DiscordConfig>({
  name: 'notify-discord',
  configSchema: schema as unknown as ConfigSchema<DiscordConfig>,
  requires: 'webhook-url',
  channel: ({ config, value: url, templates }) => ({
    deliver: (notification, tools) => tools.send({ url, body: discordPayload(notification, templates, config), retryAfterFromBody: discordRetryAfter }),
  }),
});
