import * as yup from 'yup';
import { channelSchema, defineChannel, httpUrl, secret, type ChannelSection } from '../../core/kits/notify-channel/index.js';
import type { ConfigSchema } from '../../core/plugin-api.js';
import { webhookBody } from './payload.js';
import { isWebhookSecret, signature } from './signature.js';

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers Vigil sets itself; an extra header must not replace them. */
const RESERVED = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature', 'content-type', 'content-length', 'host', 'transfer-encoding']);

const headersSchema = yup.lazy((map: unknown) => yup.object(Object.fromEntries(Object.keys(typeof map === 'object' && map !== null ? map : {}).map((name) => [
  name,
  yup.string().typeError('${path} must be a string').required()
    .test('name', `headers: "${name}" is not a valid header name`, () => TOKEN.test(name))
    .test('reserved', `headers: "${name}" is set by Vigil and cannot be replaced`, () => !RESERVED.has(name.toLowerCase())),
]))).default({}));

const schema = channelSchema({
  url: httpUrl(),
  secret: secret().default('').test('whsec', '${path} must be a Standard Webhooks secret: whsec_ and base64 of 24 to 64 bytes', (value) => !value || isWebhookSecret(value)),
  headers: headersSchema,
});

interface WebhookConfig extends ChannelSection {
  readonly url?: string;
  readonly secret: string;
  readonly headers: Record<string, string>;
}

/**
 * `notify-webhook`: Vigil's own JSON body to any URL, signed with the Standard Webhooks scheme
 * when a `secret` is set (`webhook-id` stable across retries, `webhook-timestamp`,
 * `webhook-signature: v1,…`), with optional extra `headers` (an `Authorization`, say).
 */
export default defineChannel<WebhookConfig>({
  name: 'notify-webhook',
  configSchema: schema as unknown as ConfigSchema<WebhookConfig>,
  requires: 'url',
  channel({ config: { secret: key, headers }, value: url }) {
    return {
      secrets: [url, ...(key ? [key] : []), ...Object.values(headers)],
      async deliver(notification, tools) {
        const body = JSON.stringify(webhookBody(notification));
        const timestamp = Math.floor(Date.now() / 1000);
        const signed: Record<string, string> = { 'webhook-id': notification.id, 'webhook-timestamp': String(timestamp) };
        if (key) signed['webhook-signature'] = signature(key, notification.id, timestamp, body);
        return tools.send({ url, body, headers: { ...headers, 'content-type': 'application/json', ...signed } });
      },
    };
  },
});
