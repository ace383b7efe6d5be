import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as yup from 'yup';
import type { NotificationsStatus } from '../../../../core/domain/index.js';
import { channelSchema, defineChannel, httpUrl, type ChannelSection } from '../../../../core/kits/notify-channel/index.js';
import type { ConfigSchema, VigilPlugin } from '../../../../core/plugin-api.js';
import { startTestKernel } from '../../../../bin/testing.js';
import { call } from '../../../support/http.js';

interface EchoConfig extends ChannelSection {
  readonly 'webhook-url'?: string;
  readonly room: string;
}

/** A third-party channel as the kit lets one be written: the key it needs, and how it delivers. */
const echo = defineChannel<EchoConfig>({
  name: 'notify-echo',
  configSchema: channelSchema({ 'webhook-url': httpUrl(), room: yup.string().default('ops') }, { messages: { status: '{{name}} is {{status}}', registered: '{{name}} registered', deregistered: '{{name}} left' } }) as unknown as ConfigSchema<EchoConfig>,
  requires: 'webhook-url',
  alsoSet: 'room',
  channel: ({ value: url, config }) => ({ deliver: (notification, tools) => tools.send({ url, body: { room: config.room, id: notification.id } }) }),
}) as unknown as VigilPlugin<never>;

async function channelOf(config: Record<string, unknown>): Promise<{ channel: NotificationsStatus['channels'][number]; logs: string[] }> {
  const tk = await startTestKernel({ plugins: ['notify', echo], config });
  try {
    const status = (await call('GET', `${tk.url}/notifications`)).json as NotificationsStatus;
    return { channel: status.channels[0]!, logs: tk.logs() };
  } finally {
    await tk.stop();
  }
}

test('defineChannel: without the required key the channel is off and a warning names the keys to set', async () => {
  const { channel, logs } = await channelOf({});
  assert.equal([channel.name, channel.enabled, channel.target], ['notify-echo', false, '(not configured)']);
  assert.ok(logs.some((line) => line.includes('no webhook-url: the channel is off (set notify-echo.webhook-url and room)')), logs.join('\n'));
});

test('defineChannel: with it, the channel is named after the plugin, on by default, and shows its URL masked', async () => {
  const { channel } = await channelOf({ 'notify-echo': { 'webhook-url': 'https://hooks.example.com/secret-path' } });
  assert.equal([channel.name, channel.enabled, channel.target], ['notify-echo', true, 'https://hooks.example.com/******']);
});

test.run();
