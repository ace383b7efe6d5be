import * as yup from 'yup';
import {
  applicationLines, applicationTitle, capText, channelSchema, defineChannel, escapes, groupLines, groupTitle, httpUrl, instanceText, joinLines, summaryText,
  type ChannelSection, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  /** The incoming webhook URL (`https://mattermost.example.com/hooks/xxx`). */
  url: httpUrl(),
  channel: yup.string().default(''),
  username: yup.string().default(''),
  'icon-url': httpUrl().default(''),
}, {
  messages: {
    status: '**{{name}}** ({{id}}) is **{{status}}**',
    registered: '**{{name}}** ({{id}}) has registered',
    deregistered: '**{{name}}** ({{id}}) has deregistered',
  },
});

interface MattermostConfig extends ChannelSection {
  readonly url?: string;
  readonly channel: string;
  readonly username: string;
  readonly 'icon-url': string;
}

/** Mattermost's incoming-webhook body: markdown `text` (values escaped, no @-mention can form), and the optional overrides. */
export function mattermostPayload(notification: Notification, templates: MessageTemplates, config: MattermostConfig): Record<string, unknown> {
  let text: string;
  if (notification.kind === 'instance') text = instanceText(notification, templates, escapes.markdown);
  else if (notification.kind === 'group') text = joinLines([`**${groupTitle(notification)}**`, ...groupLines(notification, escapes.markdown)], 16000);
  else if (notification.kind === 'application') text = joinLines([`**${applicationTitle(notification, escapes.markdown)}**`, ...applicationLines(notification, escapes.markdown)], 16000);
  else text = `**${summaryText(notification)}**`;
  return {
    text: capText(text, 16_000),
    ...(config.channel ? { channel: config.channel } : {}),
    ...(config.username ? { username: config.username } : {}),
    ...(config['icon-url'] ? { icon_url: config['icon-url'] } : {}),
  };
}

/** `notify-mattermost`: a Mattermost incoming webhook (`url`). */
export default defineChannel<MattermostConfig>({
  name: 'notify-mattermost',
  configSchema: schema as unknown as ConfigSchema<MattermostConfig>,
  requires: 'url',
  channel: ({ config, value: url, templates }) => ({
    deliver: (notification, tools) => tools.send({ url, body: mattermostPayload(notification, templates, config) }),
  }),
});
