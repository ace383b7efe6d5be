import type { SpringEntry } from './spring-source.js';
import { convertSbaTemplate } from './sba-templates.js';
import { displayKey, type Migration } from './values.js';

/** A key under `spring.boot.admin.notify.`, or under `spring.mail.` (`rest` canonical, `raw` as written). */
export interface Keyed {
  readonly entry: SpringEntry;
  readonly rest: readonly string[];
  readonly raw: readonly (string | number)[];
}

type Kind = 'text' | 'list' | 'number' | 'boolean';

interface NotifierSpec {
  /** The Vigil plugin (CONTRACT §5), or null when Vigil has none. */
  readonly plugin: string | null;
  /** SBA key (canonical) → the Vigil key (dotted for a nested one) and how its value reads. */
  readonly keys: Readonly<Record<string, readonly [string, Kind]>>;
  /** SBA key (canonical) of a SpEL message template → the Vigil template key it becomes. */
  readonly templates?: Readonly<Record<string, string>>;
  /** SBA keys (canonical; `x.*` for every key under x) Vigil has no counterpart for, each with why. */
  readonly dropped?: Readonly<Record<string, string>>;
  /** The SBA key whose presence switches the notifier on (SBA's auto-configuration condition). */
  readonly switch?: string;
  /** Why a key of this notifier is left out that SBA does not document either. */
  readonly why: string;
}

/** Every SBA notifier's `ignore-changes` (status changes it stays silent about) is the channel's own in Vigil. */
const COMMON_KEYS: Readonly<Record<string, readonly [string, Kind]>> = { ignorechanges: ['ignore-changes', 'list'] };

/** The property names of SBA's notifier classes (`spring.boot.admin.notify.<name>.<property>`, documented in its "Notifications" pages). */
const SPEC: Readonly<Record<string, NotifierSpec>> = {
  slack: {
    plugin: 'notify-slack', switch: 'webhookurl',
    keys: { webhookurl: ['webhook-url', 'text'], channel: ['channel', 'text'], username: ['username', 'text'], icon: ['icon', 'text'] },
    templates: { message: 'message' },
    why: 'not a setting of SBA\'s Slack notifier nor of notify-slack',
  },
  msteams: {
    plugin: 'notify-teams', switch: 'webhookurl',
    keys: {
      webhookurl: ['webhook-url', 'text'],
      statuschangedtitle: ['titles.status-changed', 'text'], registeredtitle: ['titles.registered', 'text'], deregisteredtitle: ['titles.deregistered', 'text'],
    },
    templates: { statusactivitysubtitle: 'message', registeractivitysubtitle: 'registered-message', deregisteractivitysubtitle: 'deregistered-message' },
    dropped: {
      themecolor: 'notify-teams colours the card by status itself (SBA\'s colour is an expression, which Vigil does not evaluate)',
      messagesummary: 'the Adaptive Card notify-teams sends has no summary line (its title and text carry the message)',
    },
    why: 'not a setting of SBA\'s Microsoft Teams notifier nor of notify-teams',
  },
  discord: {
    plugin: 'notify-discord', switch: 'webhookurl',
    keys: { webhookurl: ['webhook-url', 'text'], username: ['username', 'text'], avatarurl: ['avatar-url', 'text'], tts: ['tts', 'boolean'] },
    templates: { message: 'message' },
    why: 'not a setting of SBA\'s Discord notifier nor of notify-discord',
  },
  telegram: {
    plugin: 'notify-telegram', switch: 'authtoken',
    keys: {
      authtoken: ['auth-token', 'text'], chatid: ['chat-id', 'text'], apiurl: ['api-url', 'text'],
      messagethreadid: ['message-thread-id', 'number'], disablenotify: ['disable-notify', 'boolean'],
    },
    templates: { message: 'message' },
    dropped: { parsemode: 'notify-telegram sends HTML (SBA\'s default parse mode) and escapes every value for it: write the message in Telegram\'s HTML' },
    why: 'not a setting of SBA\'s Telegram notifier nor of notify-telegram',
  },
  opsgenie: {
    plugin: 'notify-opsgenie', switch: 'apikey',
    keys: { apikey: ['api-key', 'text'], url: ['url', 'text'], tags: ['tags', 'list'] },
    // SBA's OpsGenie `description` is the template of the alert's message.
    templates: { description: 'message' },
    dropped: {
      actions: 'notify-opsgenie sends no actions: add them to the alerts in Opsgenie (its integration\'s alert actions)',
      source: 'notify-opsgenie sends "Vigil" as the source of every alert',
      entity: 'notify-opsgenie sets each alert\'s entity to the application name',
      user: 'notify-opsgenie sends no user: Opsgenie records the integration as the alert\'s creator',
    },
    why: 'not a setting of SBA\'s OpsGenie notifier nor of notify-opsgenie',
  },
  pagerduty: {
    plugin: 'notify-pagerduty', switch: 'servicekey',
    keys: { servicekey: ['routing-key', 'text'] },
    // SBA's PagerDuty `description` is the template of the incident's summary.
    templates: { description: 'message' },
    dropped: {
      client: 'notify-pagerduty names Vigil as the client of every event',
      clienturl: 'notify-pagerduty links each event to the instance on Vigil\'s dashboard: set notify.base-url to the dashboard\'s URL',
    },
    why: 'not a setting of SBA\'s PagerDuty notifier nor of notify-pagerduty',
  },
  mail: {
    plugin: 'notify-mail',
    keys: { to: ['to', 'list'], cc: ['cc', 'list'], from: ['from', 'text'], baseurl: ['base-url', 'text'] },
    dropped: {
      template: "notify-mail sends Vigil's own mail, not a Thymeleaf template: its text is set with message, registered-message and deregistered-message",
      'additionalproperties.*': 'a value for SBA\'s Thymeleaf mail template, which notify-mail does not use',
    },
    why: 'not a setting of SBA\'s mail notifier nor of notify-mail',
  },
  mattermost: {
    plugin: null, keys: {},
    why: "SBA posts to Mattermost's API with a bot token; Vigil's notify-mattermost posts to an incoming webhook: create one and set notify-mattermost.url",
  },
  proxy: { plugin: null, keys: {}, why: 'Vigil calls notification services directly, with no proxy setting' },
};

const NO_NOTIFIER = (name: string) => `Vigil has no ${name} notifier (notify-webhook posts signed JSON to any URL)`;
/** SBA's PagerDuty default: Events API v1, which notify-pagerduty (Events API v2) does not speak. */
const PAGERDUTY_V1 = /\/generic\/2010-04-15\/create_event\.json\s*$/;

/**
 * SBA's notifiers (reference §11.2) as Vigil's `notify-*` plugins, with `notify` for the pipeline.
 * A notifier SBA would not create (its switch key missing, `enabled: false`, for mail no
 * `spring.mail.host`) is left out, its keys listed with the reason.
 */
export function mapNotifiers(m: Migration, notify: readonly Keyed[], mail: readonly Keyed[], publicUrl: string | undefined): void {
  const byName = new Map<string, Keyed[]>();
  for (const item of notify) byName.set(item.rest[0]!, [...(byName.get(item.rest[0]!) ?? []), item]);
  for (const [name, items] of byName) {
    const spec = SPEC[name];
    if (!spec?.plugin) {
      for (const { entry } of items) m.skip(entry, spec?.why ?? NO_NOTIFIER(String(items[0]!.raw[0])));
      continue;
    }
    const own = (key: string) => items.find((item) => item.rest.length === 2 && item.rest[1] === key);
    const enabled = own('enabled');
    const active = name === 'mail' ? mail.some((item) => item.rest.join('.') === 'host') : own(spec.switch!) !== undefined;
    if (!active || (enabled && String(enabled.entry.value).trim().toLowerCase() === 'false')) {
      const why = !active
        ? name === 'mail' ? 'SBA sends mail only with spring.mail.host set, and this file has none' : `SBA creates this notifier only with its ${spec.switch} set`
        : 'this notifier is switched off (enabled: false)';
      for (const { entry } of items) m.skip(entry, why);
      continue;
    }
    m.use('notify');
    m.use(spec.plugin);
    for (const item of items) {
      const key = item.rest.slice(1).join('.');
      const target = spec.keys[key] ?? COMMON_KEYS[key];
      const template = spec.templates?.[key];
      if (key === 'enabled') continue;
      if (name === 'pagerduty' && key === 'url' && PAGERDUTY_V1.test(String(item.entry.value))) {
        m.skip(item.entry, "SBA's PagerDuty Events API v1 URL; notify-pagerduty sends Events API v2 to its own default URL");
      } else if (name === 'pagerduty' && key === 'url') {
        m.set([spec.plugin, 'url'], m.text(item.entry.value as string, [spec.plugin, 'url']), 'from spring.boot.admin.notify.pagerduty.url: it must accept Events API v2');
      } else if (template) {
        const converted = convertSbaTemplate(String(item.entry.value));
        const path = [spec.plugin, template];
        if (converted.ok) m.set(path, m.text(converted.template, path), `from ${displayKey(item.entry)}, SBA's #{…} placeholders written as Vigil's {{…}}`);
        else m.skip(item.entry, converted.why);
      } else if (target) {
        const path = [spec.plugin, ...target[0].split('.')];
        m.set(path, convert(m, item.entry, path, target[1]));
        if (name === 'pagerduty') m.note(path, "SBA's service key: the integration key of a PagerDuty service, used here with Events API v2");
      } else {
        m.skip(item.entry, droppedReason(spec, key) ?? spec.why);
      }
    }
    if (name === 'mail') mailServer(m, mail, publicUrl);
  }
  if (!byName.has('mail') && mail.some((item) => item.rest.join('.') === 'host')) {
    // SBA's mail notifier is on as soon as a mail sender exists, sending to root@localhost by default.
    m.use('notify');
    m.use('notify-mail');
    m.set(['notify-mail', 'to'], ['root@localhost'], "SBA's default recipient: set the one you want");
    mailServer(m, mail, publicUrl);
  }
}

/** The SMTP server from Spring Boot's `spring.mail.*`, which SBA's mail notifier sends through. */
function mailServer(m: Migration, mail: readonly Keyed[], publicUrl: string | undefined): void {
  let secure = false;
  for (const item of mail) {
    const key = item.rest.join('.');
    const value = item.entry.value;
    const target = key === 'host' ? 'host' : key === 'port' ? 'port' : key === 'username' ? 'user' : key === 'password' ? 'password' : undefined;
    if (target) {
      const path = ['notify-mail', target];
      m.set(path, target === 'port' ? m.number(value, path) : m.text(value as string, path));
    } else if (key === 'protocol' && String(value).toLowerCase() === 'smtps') {
      secure = true;
    } else if (key === 'properties.mail.smtp.ssl.enable') {
      secure = String(value).toLowerCase() === 'true';
    } else if (key === 'properties.mail.smtp.starttls.enable' || key === 'properties.mail.smtp.auth') {
      m.skip(item.entry, 'notify-mail upgrades to TLS whenever the server offers it, and authenticates (with TLS required, unless require-tls: false) whenever user is set');
    } else {
      m.skip(item.entry, 'not a mail setting notify-mail has');
    }
  }
  if (secure) m.set(['notify-mail', 'secure'], true, 'from spring.mail TLS settings (smtps or mail.smtp.ssl.enable)');
  if (publicUrl !== undefined && m.get(['notify-mail', 'base-url']) === undefined) {
    m.set(['notify-mail', 'base-url'], publicUrl, 'from spring.boot.admin.ui.public-url: links in the mails point there');
  }
}

function convert(m: Migration, entry: SpringEntry, path: readonly string[], kind: Kind): unknown {
  switch (kind) {
    case 'list': return m.texts(entry.value, path);
    case 'number': return m.number(entry.value, path);
    case 'boolean': return m.boolean(entry.value, path);
    default: return m.text(entry.value as string, path);
  }
}

/** The reason SBA's documented key `key` is left out, also for a key under one dropped whole (`x.*`). */
function droppedReason(spec: NotifierSpec, key: string): string | undefined {
  if (!spec.dropped) return undefined;
  if (Object.hasOwn(spec.dropped, key)) return spec.dropped[key];
  const whole = Object.keys(spec.dropped).find((dropped) => dropped.endsWith('.*') && key.startsWith(dropped.slice(0, -1)));
  return whole === undefined ? undefined : spec.dropped[whole];
}
