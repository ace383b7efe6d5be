import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parse } from 'yaml';
import { migrateConfig } from '../../config/migrate/migrate-config.js';
import { prepare } from '../../core/prepare.js';
import { builtinPlugins } from '../../bin/builtin-plugins.js';
import { repoRoot } from '../support/paths.js';

/**
 * Issue 29, item 6: `vigil migrate-config` keeps what Vigil has of each SBA notifier, with the
 * property names SBA documents (spring-boot-admin's notifier classes and its "Notifications"
 * pages): Slack's channel, username and icon; every notifier's ignore-changes; message templates
 * in SBA's #{…} form as Vigil placeholders (a template with an expression is named as not
 * carried, with that reason); each key it drops with its own reason. The result must pass
 * Vigil's own check with the real notify plugins.
 */
type Config = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- asserted key by key

async function migrated(properties: string): Promise<{ yaml: string; config: Config; dropped: Map<string, string> }> {
  const yaml = migrateConfig(properties, { fileName: 'application.properties' });
  const config = parse(yaml) as Config;
  await prepare({ config, cwd: repoRoot, env: {}, builtins: builtinPlugins });
  const dropped = new Map<string, string>();
  for (const match of yaml.matchAll(/^#   (spring\.boot\.admin\.notify\.[^:]+): (.+)$/gm)) dropped.set(match[1]!, match[2]!);
  return { yaml, config, dropped };
}

const lines = (...entries: string[]) => `${entries.join('\n')}\n`;

test('slack: webhook-url, channel, username, icon, message and ignore-changes are kept', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.slack.webhook-url=https://hooks.slack.com/services/T000/B000/XXXX',
    'spring.boot.admin.notify.slack.channel=ops',
    'spring.boot.admin.notify.slack.username=Spring Boot Admin',
    'spring.boot.admin.notify.slack.icon=rotating_light',
    'spring.boot.admin.notify.slack.message=*#{instance.registration.name}* (#{instance.id}) is *#{event.statusInfo.status}*, was #{lastStatus}',
    'spring.boot.admin.notify.slack.ignore-changes=UNKNOWN:UP,*:UNKNOWN',
  ));
  assert.equal(config['notify-slack'], {
    'webhook-url': 'https://hooks.slack.com/services/T000/B000/XXXX', channel: 'ops', username: 'Spring Boot Admin', icon: 'rotating_light',
    message: '*{{name}}* ({{id}}) is *{{status}}*, was {{lastStatus}}', 'ignore-changes': ['UNKNOWN:UP', '*:UNKNOWN'],
  });
  assert.equal([...dropped.keys()], []);
});

test('ms-teams: titles and activity subtitles become titles and messages; an expression, the theme colour and the summary are dropped, each with its reason', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.ms-teams.webhook-url=https://example.webhook.office.com/webhookb2/abc',
    'spring.boot.admin.notify.ms-teams.status-changed-title=Status changed',
    'spring.boot.admin.notify.ms-teams.registered-title=New instance',
    'spring.boot.admin.notify.ms-teams.de-registered-title=Instance gone',
    'spring.boot.admin.notify.ms-teams.status-activity-subtitle=#{instance.registration.name} went from #{lastStatus} to #{event.statusInfo.status}',
    'spring.boot.admin.notify.ms-teams.register-activity-subtitle=#{instance.registration.name} with id #{instance.id} registered',
    'spring.boot.admin.notify.ms-teams.deregister-activity-subtitle=#{instance.registration.name.toUpperCase()} left',
    "spring.boot.admin.notify.ms-teams.theme-color=#{event.type == 'STATUS_CHANGED' ? 'b32d36' : '439fe0'}",
    'spring.boot.admin.notify.ms-teams.message-summary=SBA notification',
    'spring.boot.admin.notify.ms-teams.ignore-changes=UNKNOWN:UP',
  ));
  assert.equal(config['notify-teams'], {
    'webhook-url': 'https://example.webhook.office.com/webhookb2/abc',
    titles: { 'status-changed': 'Status changed', registered: 'New instance', deregistered: 'Instance gone' },
    message: '{{name}} went from {{lastStatus}} to {{status}}',
    'registered-message': '{{name}} with id {{id}} registered',
    'ignore-changes': ['UNKNOWN:UP'],
  });
  assert.is(dropped.get('spring.boot.admin.notify.ms-teams.deregister-activity-subtitle'),
    'not carried: the template holds an expression (#{instance.registration.name.toUpperCase()}), which Vigil\'s templates do not evaluate; write it with placeholders such as {{name}}, {{id}}, {{status}}');
  assert.match(dropped.get('spring.boot.admin.notify.ms-teams.theme-color')!, 'notify-teams colours the card by status itself');
  assert.match(dropped.get('spring.boot.admin.notify.ms-teams.message-summary')!, 'no summary');
});

test('discord: webhook-url, username, avatar-url, tts, message and ignore-changes are kept', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.discord.webhook-url=https://discord.com/api/webhooks/1/abc',
    'spring.boot.admin.notify.discord.username=Admin',
    'spring.boot.admin.notify.discord.avatar-url=https://example.com/avatar.png',
    'spring.boot.admin.notify.discord.tts=true',
    'spring.boot.admin.notify.discord.message=**#{instance.registration.name}** is #{event.statusInfo.status}',
    'spring.boot.admin.notify.discord.ignore-changes=UNKNOWN:UP,OFFLINE:*',
  ));
  assert.equal(config['notify-discord'], {
    'webhook-url': 'https://discord.com/api/webhooks/1/abc', username: 'Admin', 'avatar-url': 'https://example.com/avatar.png', tts: true,
    message: '**{{name}}** is {{status}}', 'ignore-changes': ['UNKNOWN:UP', 'OFFLINE:*'],
  });
  assert.equal([...dropped.keys()], []);
});

test('telegram: token, chat, API URL, thread, silence, message and ignore-changes kept; parse-mode dropped with its reason', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.telegram.auth-token=123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11',
    'spring.boot.admin.notify.telegram.chat-id=@ops',
    'spring.boot.admin.notify.telegram.api-url=https://telegram.example.com',
    'spring.boot.admin.notify.telegram.message-thread-id=42',
    'spring.boot.admin.notify.telegram.disable-notify=true',
    'spring.boot.admin.notify.telegram.parse-mode=HTML',
    'spring.boot.admin.notify.telegram.message=<b>#{instance.registration.name}</b>/#{instance.id} is <b>#{event.statusInfo.status}</b>',
    'spring.boot.admin.notify.telegram.ignore-changes=UNKNOWN:UP',
  ));
  assert.equal(config['notify-telegram'], {
    'auth-token': '123456:ABC-DEF1234ghIkl-zyx57W2v1u123ew11', 'chat-id': '@ops', 'api-url': 'https://telegram.example.com',
    'message-thread-id': 42, 'disable-notify': true, message: '<b>{{name}}</b>/{{id}} is <b>{{status}}</b>', 'ignore-changes': ['UNKNOWN:UP'],
  });
  assert.equal([...dropped.keys()], ['spring.boot.admin.notify.telegram.parse-mode']);
  assert.match(dropped.get('spring.boot.admin.notify.telegram.parse-mode')!, 'notify-telegram sends HTML');
});

test('opsgenie: key, URL, tags, description (the alert message) and ignore-changes kept; actions, source, entity and user dropped, each with its reason', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.opsgenie.api-key=0a1b2c3d',
    'spring.boot.admin.notify.opsgenie.url=https://api.eu.opsgenie.com/v2/alerts',
    'spring.boot.admin.notify.opsgenie.tags=prod,payments',
    'spring.boot.admin.notify.opsgenie.description=#{instance.registration.name}/#{instance.id} is #{instance.statusInfo.status}',
    'spring.boot.admin.notify.opsgenie.actions=restart',
    'spring.boot.admin.notify.opsgenie.source=spring-boot-admin',
    'spring.boot.admin.notify.opsgenie.entity=shop',
    'spring.boot.admin.notify.opsgenie.user=ops-bot',
    'spring.boot.admin.notify.opsgenie.ignore-changes=UNKNOWN:UP',
  ));
  assert.equal(config['notify-opsgenie'], {
    'api-key': '0a1b2c3d', url: 'https://api.eu.opsgenie.com/v2/alerts', tags: ['prod', 'payments'], message: '{{name}}/{{id}} is {{status}}', 'ignore-changes': ['UNKNOWN:UP'],
  });
  const reasons = ['actions', 'source', 'entity', 'user'].map((key) => dropped.get(`spring.boot.admin.notify.opsgenie.${key}`));
  assert.ok(reasons.every(Boolean), JSON.stringify(reasons));
  assert.is(new Set(reasons).size, 4, 'each its own reason');
});

test('pagerduty: service-key, description and ignore-changes kept; the v1 URL, client and client-url dropped, each with its reason', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.pagerduty.service-key=0123456789abcdef0123456789abcdef',
    'spring.boot.admin.notify.pagerduty.url=https://events.pagerduty.com/generic/2010-04-15/create_event.json',
    'spring.boot.admin.notify.pagerduty.client=Spring Boot Admin',
    'spring.boot.admin.notify.pagerduty.client-url=https://sba.example.com',
    'spring.boot.admin.notify.pagerduty.description=#{instance.registration.name} is #{instance.statusInfo.status}',
    'spring.boot.admin.notify.pagerduty.ignore-changes=UNKNOWN:UP',
  ));
  assert.equal(config['notify-pagerduty'], { 'routing-key': '0123456789abcdef0123456789abcdef', message: '{{name}} is {{status}}', 'ignore-changes': ['UNKNOWN:UP'] });
  assert.match(dropped.get('spring.boot.admin.notify.pagerduty.url')!, 'Events API v1');
  assert.match(dropped.get('spring.boot.admin.notify.pagerduty.client')!, 'Vigil');
  assert.match(dropped.get('spring.boot.admin.notify.pagerduty.client-url')!, 'notify.base-url');
});

test('mail: recipients, sender and ignore-changes kept; the Thymeleaf template and additional properties dropped, each with its reason', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.mail.host=smtp.example.com',
    'spring.boot.admin.notify.mail.to=ops@example.com,oncall@example.com',
    'spring.boot.admin.notify.mail.cc=lead@example.com',
    'spring.boot.admin.notify.mail.from=Admin <admin@example.com>',
    'spring.boot.admin.notify.mail.template=classpath:/templates/status.html',
    'spring.boot.admin.notify.mail.additional-properties.environment=prod',
    'spring.boot.admin.notify.mail.ignore-changes=UNKNOWN:UP,UP:OFFLINE',
  ));
  assert.equal(config['notify-mail'], {
    to: ['ops@example.com', 'oncall@example.com'], cc: ['lead@example.com'], from: 'Admin <admin@example.com>', 'ignore-changes': ['UNKNOWN:UP', 'UP:OFFLINE'], host: 'smtp.example.com',
  });
  assert.match(dropped.get('spring.boot.admin.notify.mail.template')!, 'Thymeleaf');
  assert.match(dropped.get('spring.boot.admin.notify.mail.additional-properties.environment')!, 'template');
  assert.is.not(dropped.get('spring.boot.admin.notify.mail.template'), dropped.get('spring.boot.admin.notify.mail.additional-properties.environment'));
});

test('a template placeholder Vigil has no field for is an expression too: the template is named, not carried', async () => {
  const { config, dropped } = await migrated(lines(
    'spring.boot.admin.notify.slack.webhook-url=https://hooks.slack.com/services/T000/B000/XXXX',
    'spring.boot.admin.notify.slack.message=#{instance.registration.name} is #{instance.buildVersion}',
  ));
  assert.equal(config['notify-slack'], { 'webhook-url': 'https://hooks.slack.com/services/T000/B000/XXXX' });
  assert.match(dropped.get('spring.boot.admin.notify.slack.message')!, '(#{instance.buildVersion})');
});

test.run();
