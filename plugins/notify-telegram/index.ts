import * as yup from 'yup';
import {
  applicationLines, applicationTitle, channelSchema, defineChannel, escapes, groupLines, groupTitle, httpUrl, instanceText, joinLines, secret, summaryText,
  type ChannelSection, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';

const schema = channelSchema({
  'auth-token': secret().default(''),
  'chat-id': yup.string().default('').when('auth-token', {
    is: (token: string | undefined) => Boolean(token),
    then: (chat) => chat.required('${path} is required with auth-token'),
  }),
  'api-url': httpUrl().default('https://api.telegram.org'),
  'message-thread-id': yup.number().integer().optional(),
  'disable-notify': yup.boolean().default(false),
}, {
  messages: {
    status: '<strong>{{name}}</strong>/{{id}} is <strong>{{status}}</strong>',
    registered: '<strong>{{name}}</strong>/{{id}} has registered',
    deregistered: '<strong>{{name}}</strong>/{{id}} has deregistered',
  },
  // Telegram allows about one message a second per chat.
  rateLimit: 1,
});

interface TelegramConfig extends ChannelSection {
  readonly 'auth-token': string;
  readonly 'chat-id': string;
  readonly 'api-url': string;
  readonly 'message-thread-id'?: number;
  readonly 'disable-notify': boolean;
}

/** The `sendMessage` body: HTML text (every value HTML-escaped), at most 4,096 characters. */
export function telegramPayload(notification: Notification, templates: MessageTemplates, config: TelegramConfig): Record<string, unknown> {
  let text: string;
  if (notification.kind === 'instance') text = instanceText(notification, templates, escapes.html);
  else if (notification.kind === 'group') text = joinLines([`<b>${escapes.html(groupTitle(notification))}</b>`, ...groupLines(notification, escapes.html)], 4096);
  else if (notification.kind === 'application') text = joinLines([`<b>${applicationTitle(notification, escapes.html)}</b>`, ...applicationLines(notification, escapes.html)], 4096);
  else text = `<b>${escapes.html(summaryText(notification))}</b>`;
  return {
    chat_id: config['chat-id'],
    // A single change's text is short (values are capped); a group is cut by whole lines.
    text,
    parse_mode: 'HTML',
    disable_notification: config['disable-notify'],
    ...(config['message-thread-id'] !== undefined ? { message_thread_id: config['message-thread-id'] } : {}),
  };
}

/** Telegram's flood control: `{"ok":false,"error_code":429,"parameters":{"retry_after":N}}`, in seconds. */
export function telegramRetryAfter(json: unknown): number | undefined {
  const value = (json as { parameters?: { retry_after?: unknown } } | null)?.parameters?.retry_after;
  return typeof value === 'number' && value >= 0 ? value * 1000 : undefined;
}

/**
 * `notify-telegram`: a bot's `sendMessage`, as a POST with a JSON body (SBA sends a GET with
 * the text in the query). The token is part of the URL path, so that URL is never logged.
 */
export default defineChannel<TelegramConfig>({
  name: 'notify-telegram',
  configSchema: schema as unknown as ConfigSchema<TelegramConfig>,
  requires: 'auth-token',
  alsoSet: 'chat-id',
  channel({ config, value: token, templates }) {
    const base = config['api-url'].replace(/\/+$/, '');
    const url = `${base}/bot${token}/sendMessage`;
    // The token is the URL's only secret (the default): listing the URL would mask its whole path, `sendMessage` too.
    return {
      target: `${base}/bot******/sendMessage`,
      deliver: (notification, tools) => tools.send({ url, body: telegramPayload(notification, templates, config), retryAfterFromBody: telegramRetryAfter }),
    };
  },
});
