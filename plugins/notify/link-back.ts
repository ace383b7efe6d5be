import type { NotificationChannel } from '../../core/kits/notify-channel/index.js';
import type { PluginContext } from '../../core/plugin-api.js';
import type { NotifyConfig } from './config-schema.js';

/** Built-in channels whose messages always carry a link to Vigil (a generatorURL, a dashboard link). */
const LINKING_CHANNELS: ReadonlySet<string> = new Set(['notify-alertmanager', 'notify-mail', 'notify-opsgenie', 'notify-pagerduty']);
const BASE_URL_PLACEHOLDER = /\{\{\s*baseUrl\s*\}\}|#\{\s*baseUrl\s*\}/;

/**
 * Without `notify.base-url`, links back to Vigil are built from the address it listens on
 * (`http://0.0.0.0:8080` by default), which a mail reader or Alertmanager's UI cannot open. Says
 * so once at start, naming the key and the channels that link back: the built-in ones that always
 * do (unless a channel has its own `base-url`), and any whose message templates use `baseUrl`.
 */
export function warnWithoutBaseUrl(ctx: PluginContext<NotifyConfig>, channels: readonly NotificationChannel[]): void {
  if (ctx.config['base-url']) return;
  const sections = ctx.settings.about().config;
  const linking = channels.filter((channel) => {
    const section = sections[channel.name] as Record<string, unknown> | undefined;
    if (typeof section?.['base-url'] === 'string' && section['base-url'] !== '') return false;
    return LINKING_CHANNELS.has(channel.name) || Object.values(section ?? {}).some((value) => typeof value === 'string' && BASE_URL_PLACEHOLDER.test(value));
  }).map((channel) => channel.name);
  if (linking.length === 0) return;
  const them = linking.length === 1 ? 'it notifies' : 'they notify';
  ctx.log.warn(`notify.base-url is not set: ${linking.join(', ')} ${linking.length === 1 ? 'links' : 'link'} back to Vigil with ${ctx.settings.address() ?? 'its listening address'}, `
    + `which the people and tools ${them} may not reach; set notify.base-url to the URL they open Vigil at`);
}
