import * as yup from 'yup';
import { SHARED_STATE, duration, type ConfigSchema, type PluginContext, type SharedMap } from '../../core/plugin-api.js';
import {
  channelSchema, channelSettingsOf, defineChannel, httpUrl, maskedUrl, type Attempt, type ChannelSection, type DeliveryTools,
  type InstanceNotification, type MessageTemplates, type Notification,
} from '../../core/kits/notify-channel/index.js';
import { applicationAlert, instanceAlert, sameLabels, stormAlert, wireAlert, type Alert, type KeptAlert } from './alerts.js';
import { silenceHook } from './silences.js';

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

const schema = channelSchema({
  /** Alertmanager's base URL (`http://alertmanager:9093`); alerts go to `{url}/api/v2/alerts`. */
  url: httpUrl(),
  /** Firing alerts are re-sent this often (Prometheus's resend delay). */
  'resend-interval': duration().min(1000).default(60_000),
  /** Resolved alerts are re-sent this long (Prometheus keeps them 15 min), in case one send was lost. */
  'resolved-retention': duration().min(0).default(900_000),
  /** Maintenance windows become Alertmanager silences for their span (expired when a window is deleted early). */
  'silence-maintenance': yup.boolean().default(true),
  /** Labels added to every alert (e.g. `team: payments`), for Alertmanager's routing. */
  labels: yup.lazy((map: unknown) => yup.object(Object.fromEntries(Object.keys(typeof map === 'object' && map !== null ? map : {}).map((name) => [
    name, yup.string().required().test('label', `labels: "${name}" is not a valid label name`, () => LABEL_NAME.test(name)),
  ]))).default({})),
}, {
  messages: {
    status: '{{name}} ({{id}}) is {{status}}',
    registered: '{{name}} ({{id}}) has registered',
    deregistered: '{{name}} ({{id}}) has deregistered',
  },
});

interface AlertmanagerConfig extends ChannelSection {
  readonly url?: string;
  readonly 'resend-interval': number;
  readonly 'resolved-retention': number;
  readonly 'silence-maintenance': boolean;
  readonly labels: Record<string, string>;
}

const STORM_KEY = 'self-preservation';

/**
 * `notify-alertmanager`: Alertmanager's API v2, so teams that route alerts through it get
 * silences, inhibition and routing. An instance in a failing status is the alert
 * `VigilInstanceDown{application, instance_id, severity}`; Vigil re-sends it every
 * `resend-interval` with `endsAt` ahead while it fires, and on recovery sends it with
 * `endsAt` = now and keeps re-sending that for `resolved-retention`, as Prometheus does. The kept
 * alerts live in `SHARED_STATE`, so whichever node holds the lease re-sends them. A fleet
 * expectation not met is `VigilApplicationDegraded{application}`; maintenance windows become
 * silences (`silence-maintenance`, see silences.ts).
 */
export default defineChannel<AlertmanagerConfig>({
  name: 'notify-alertmanager',
  configSchema: schema as unknown as ConfigSchema<AlertmanagerConfig>,
  requires: 'url',
  channel({ config, target, value: url, templates, ctx }) {
    const base = url.replace(/\/+$/, '');
    const endpoint = `${base}/api/v2/alerts`;
    const kept = (): SharedMap => ctx.services.use(SHARED_STATE)!.map(`${target}.alerts`);
    const post = (tools: DeliveryTools, alerts: Alert[]) => (alerts.length ? tools.send({ url: endpoint, body: alerts }) : Promise.resolve<Attempt>({ outcome: 'delivered' }));
    return {
      // Alertmanager repeats notifications itself (`repeat_interval`): Vigil's reminders would only duplicate them.
      // A deregistration resolves the instance's alerts, whatever `on` says: nothing else would end them.
      settings: { ...channelSettingsOf(config, false), alwaysOn: ['DEREGISTERED'] },
      target: maskedUrl(endpoint),
      secrets: [],
      ...(config['silence-maintenance'] ? { maintenance: silenceHook(base, () => ctx.services.use(SHARED_STATE)!.map(`${target}.silences`)) } : {}),
      async deliver(notification, tools) {
        return post(tools, await alertsOf(notification, kept(), templates, config));
      },
      periodic: {
        intervalMs: config['resend-interval'],
        async run(tools) {
          const alerts = (await keptAlerts(kept(), ctx, config, tools)).map((alert) => wireAlert(alert, config['resend-interval']));
          const result = await post(tools, alerts);
          if (result.outcome !== 'delivered') tools.log.warn(`re-sending ${alerts.length} alerts failed: ${result.reason}`);
        },
      },
    };
  },
});

/**
 * The kept alerts to re-send, each firing alert of a deregistered instance resolved first: its
 * deregistration may never have reached the channel (silenced by a filter, or the channel was off
 * then). An instance this node does not know at all is left alone: the node may still be loading
 * the registry.
 */
async function keptAlerts(map: SharedMap, ctx: PluginContext<AlertmanagerConfig>, config: AlertmanagerConfig, tools: DeliveryTools): Promise<KeptAlert[]> {
  const now = new Date().toISOString();
  const alerts: KeptAlert[] = [];
  const departed = new Set<string>();
  let count = 0;
  for (const [key, value] of await map.entries()) {
    const alert = JSON.parse(value) as KeptAlert;
    const id = key.includes('/') ? key.slice(0, key.indexOf('/')) : undefined;
    const instance = id === undefined ? undefined : ctx.registry.get(id);
    if (alert.resolvedAt !== null || !instance || instance.registered) {
      alerts.push(alert);
      continue;
    }
    const resolved: KeptAlert = { ...alert, resolvedAt: now };
    await map.set(key, JSON.stringify(resolved), config['resolved-retention']);
    alerts.push(resolved);
    departed.add(id!);
    count += 1;
  }
  if (count > 0) tools.log.info(`resolved ${count} alert${count === 1 ? '' : 's'} of instances no longer registered: ${[...departed].join(', ')}`);
  return alerts;
}

/**
 * Records what the notification changes in the kept alerts and returns the alerts to send now.
 * Kept alerts are keyed `<instance>/<severity>` (one label set each), so a resolved one is
 * re-sent for `resolved-retention` even when the instance fires again with another severity.
 */
async function alertsOf(notification: Notification, map: SharedMap, templates: MessageTemplates, config: AlertmanagerConfig): Promise<Alert[]> {
  const resend = config['resend-interval'];
  const now = new Date().toISOString();
  const firingOf = async (prefix: string): Promise<[string, KeptAlert][]> => (await map.entries())
    .filter(([key]) => key.startsWith(prefix))
    .map(([key, value]): [string, KeptAlert] => [key, JSON.parse(value) as KeptAlert])
    .filter(([, alert]) => alert.resolvedAt === null);
  /** Resolves every firing alert under `prefix` except `keep`. */
  const resolveAll = async (prefix: string, keep?: string): Promise<Alert[]> => {
    const out: Alert[] = [];
    for (const [key, alert] of await firingOf(prefix)) {
      if (key === keep) continue;
      const resolved: KeptAlert = { ...alert, resolvedAt: now };
      await map.set(key, JSON.stringify(resolved), config['resolved-retention']);
      out.push(wireAlert(resolved, resend));
    }
    return out;
  };
  const fire = async (prefix: string, key: string, alert: KeptAlert): Promise<Alert[]> => {
    const out = await resolveAll(prefix, key);
    const stored = await map.get(key);
    const previous = stored ? (JSON.parse(stored) as KeptAlert) : undefined;
    const firing = previous && previous.resolvedAt === null && sameLabels(previous.labels, alert.labels) ? { ...alert, startsAt: previous.startsAt } : alert;
    await map.set(key, JSON.stringify(firing));
    out.push(wireAlert(firing, resend));
    return out;
  };
  if (notification.kind === 'summary') {
    const alert = stormAlert(notification, config.labels);
    if (notification.direction === 'lost') return fire(STORM_KEY, STORM_KEY, alert);
    // Resolved only once every instance the storm listed has recovered; those still failing fire on their own.
    return notification.remaining === 0 ? resolveAll(STORM_KEY) : [];
  }
  if (notification.kind === 'application') {
    // Keyed by the encoded name: no application's key is a prefix of another's, and none contains the instance keys' '/'.
    const prefix = `application:${encodeURIComponent(notification.application)}/`;
    if (notification.type === 'APPLICATION_RECOVERED') return resolveAll(prefix);
    return fire(prefix, `${prefix}degraded`, applicationAlert(notification, config.labels));
  }
  const items: readonly InstanceNotification[] = notification.kind === 'group' ? notification.items : [notification];
  const alerts: Alert[] = [];
  for (const n of items) {
    if (n.type === 'REGISTERED') continue;
    const prefix = `${n.instance.id}/`;
    if (n.type === 'DEREGISTERED' || n.to === 'UP') {
      alerts.push(...await resolveAll(prefix));
    } else {
      const alert = instanceAlert(n, templates, config.labels);
      alerts.push(...await fire(prefix, `${prefix}${alert.labels.severity}`, alert));
    }
  }
  return alerts;
}
