import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { applicationLines, applicationTitle, escapes, parseTemplate, type ApplicationNotification, type MessageTemplates } from '../../../core/kits/notify-channel/index.js';
import { discordPayload } from '../../../plugins/notify-discord/index.js';
import { mailContent } from '../../../plugins/notify-mail/mail-body.js';
import { mattermostPayload } from '../../../plugins/notify-mattermost/index.js';
import { opsgenieRequests } from '../../../plugins/notify-opsgenie/index.js';
import { pagerDutyEvents } from '../../../plugins/notify-pagerduty/index.js';
import { slackPayload } from '../../../plugins/notify-slack/index.js';
import { teamsPayload } from '../../../plugins/notify-teams/index.js';
import { telegramPayload } from '../../../plugins/notify-telegram/index.js';
import { webhookBody } from '../../../plugins/notify-webhook/payload.js';
import { HOSTILE } from './support.js';

const template = parseTemplate('unused for applications');
const templates: MessageTemplates = { STATUS_CHANGED: template, REGISTERED: template, DEREGISTERED: template };

function degraded(overrides: Partial<ApplicationNotification> = {}): ApplicationNotification {
  return {
    kind: 'application', id: 'application-abc-1-degraded', type: 'APPLICATION_DEGRADED', application: HOSTILE, up: 1, required: 2, total: 3,
    instances: [{ id: 'a1', status: 'DOWN' }, { id: 'b2', status: 'OFFLINE' }, { id: 'c3', status: 'UP' }], disappeared: false, forgotten: false,
    since: '2026-11-22T10:00:00.000Z', timestamp: '2026-11-22T10:01:00.000Z', baseUrl: 'https://vigil.example', ...overrides,
  };
}

test('application texts: degraded, disappeared, recovered, forgotten; instances listed then "and N more"', () => {
  const plain = escapes.plain;
  assert.is(applicationTitle(degraded({ application: 'orders' }), plain), 'orders is degraded: 1 of 3 instances UP, 2 required');
  assert.is(applicationTitle(degraded({ application: 'orders', total: 0, up: 0, instances: [], disappeared: true }), plain), 'orders has disappeared: no instance registered, 2 required UP');
  assert.is(applicationTitle(degraded({ application: 'orders', type: 'APPLICATION_RECOVERED', up: 1, total: 1, required: 1 }), plain), 'orders has recovered: 1 of 1 instance UP, 1 required');
  assert.is(applicationTitle(degraded({ application: 'orders', type: 'APPLICATION_RECOVERED', forgotten: true, disappeared: true, total: 0, up: 0, instances: [] }), plain),
    'orders is no longer expected: no instance registered since 2026-11-22T10:00:00.000Z');
  assert.is(applicationTitle(degraded({ application: 'orders', type: 'APPLICATION_RECOVERED', forgotten: true, required: 0 }), plain),
    'orders is no longer expected: no expectation covers it any more');
  assert.equal(applicationLines(degraded(), plain), ['a1 is DOWN', 'b2 is OFFLINE', 'c3 is UP']);
  const many = Array.from({ length: 50 }, (_, i) => ({ id: `i${i}`, status: 'DOWN' }));
  const lines = applicationLines(degraded({ instances: many, total: 80 }), plain);
  assert.is(lines.length, 21);
  assert.equal([lines[0], lines[19], lines[20]], ['i0 is DOWN', 'i19 is DOWN', 'and 60 more instances']);
  assert.is(applicationTitle(degraded({ application: 'x'.repeat(1000) }), plain).length, 300 + ' is degraded: 1 of 3 instances UP, 2 required'.length);
});

test('every built-in channel renders an application notification, its hostile name shown and never acted on', () => {
  const n = degraded();
  const slack = slackPayload(n, templates, {}) as { text: string };
  assert.is(slack.text, '*&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b* is degraded: 1 of 3 instances UP, 2 required*\na1 is DOWN\nb2 is OFFLINE\nc3 is UP');
  const markdownTitle = '**\\<!channel\\> \\</b\\>\\<script\\>x\\</script\\> @\u200beveryone \\[a\\]\\(https://evil.example\\) \\*b\\* is degraded: 1 of 3 instances UP, 2 required**';
  assert.equal(discordPayload(n, templates, { tts: false, username: '', 'avatar-url': '', enabled: true, 'rate-limit': 0 }), {
    content: `${markdownTitle}\na1 is DOWN\nb2 is OFFLINE\nc3 is UP`, tts: false, allowed_mentions: { parse: [] },
  });
  assert.equal(mattermostPayload(n, templates, { channel: '', username: '', 'icon-url': '', enabled: true, 'rate-limit': 0 }), { text: `${markdownTitle}\na1 is DOWN\nb2 is OFFLINE\nc3 is UP` });
  assert.is((telegramPayload(n, templates, { 'chat-id': '42', 'disable-notify': false, 'auth-token': 't', 'api-url': '', enabled: true, 'rate-limit': 0 }) as { text: string }).text,
    '<b>&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b* is degraded: 1 of 3 instances UP, 2 required</b>\na1 is DOWN\nb2 is OFFLINE\nc3 is UP');
  const card = teamsPayload(n, templates, { registered: '', deregistered: '', 'status-changed': '' }) as { attachments: { content: { body: { text: string; color?: string }[] } }[] };
  const body = card.attachments[0]!.content.body;
  assert.equal(body.map((block) => block.text), [
    '<\u200b!channel> <\u200b/b><\u200bscript>x<\u200b/script> @\u200beveryone [a]\u200b(https://evil.example) *b* is degraded: 1 of 3 instances UP, 2 required', 'a1 is DOWN', 'b2 is OFFLINE', 'c3 is UP',
  ]);
  assert.is(body[0]!.color, 'Attention');
  assert.is((teamsPayload({ ...n, type: 'APPLICATION_RECOVERED' }, templates, { registered: '', deregistered: '', 'status-changed': '' }) as typeof card).attachments[0]!.content.body[0]!.color, 'Good');
  const mail = mailContent(n, templates, 'https://vigil.example');
  const link = `https://vigil.example/#/applications/${encodeURIComponent(HOSTILE)}`;
  assert.is(mail.subject, `${HOSTILE} is degraded: 1 of 3 instances UP, 2 required`);
  assert.is(mail.text, `${HOSTILE} is degraded: 1 of 3 instances UP, 2 required\n${link}\n\na1 is DOWN\nb2 is OFFLINE\nc3 is UP`);
  assert.ok(mail.html.includes(`<p><a href="${link}">&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b*</a></p>`), mail.html);
  assert.not.ok(mail.html.includes('<script>'));
  assert.equal(webhookBody(n), {
    id: 'application-abc-1-degraded', type: 'APPLICATION_DEGRADED', timestamp: '2026-11-22T10:01:00.000Z', application: HOSTILE, up: 1, required: 2, total: 3,
    disappeared: false, forgotten: false, since: '2026-11-22T10:00:00.000Z', text: `${HOSTILE} is degraded: 1 of 3 instances UP, 2 required`, instances: n.instances,
  });
});

test('PagerDuty and Opsgenie: DEGRADED triggers one incident per application, RECOVERED resolves it', () => {
  const n = degraded({ application: 'orders' });
  const [trigger] = pagerDutyEvents(n, templates, 'KEY');
  assert.equal(trigger, {
    routing_key: 'KEY', event_action: 'trigger', dedup_key: 'vigil/application/orders',
    payload: {
      summary: 'orders is degraded: 1 of 3 instances UP, 2 required', source: 'vigil', severity: 'error', timestamp: n.timestamp, component: 'orders', class: 'fleet expectation',
      custom_details: { up: 1, required: 2, total: 3, since: n.since, instances: ['a1 DOWN', 'b2 OFFLINE', 'c3 UP'] },
    },
    client: 'Vigil', client_url: 'https://vigil.example/#/applications/orders',
  });
  assert.is((pagerDutyEvents({ ...n, disappeared: true }, templates, 'KEY')[0]!.payload as { severity: string }).severity, 'critical');
  assert.equal(pagerDutyEvents({ ...n, type: 'APPLICATION_RECOVERED' }, templates, 'KEY'), [{ routing_key: 'KEY', event_action: 'resolve', dedup_key: 'vigil/application/orders' }]);
  const config = { url: 'https://api.opsgenie.com/v2/alerts', 'api-key': 'K', tags: [], priority: '', enabled: true, 'rate-limit': 0 };
  const [create] = opsgenieRequests(n, templates, config);
  assert.equal(create, {
    url: 'https://api.opsgenie.com/v2/alerts', headers: { authorization: 'GenieKey K' },
    body: {
      message: 'orders is degraded: 1 of 3 instances UP, 2 required', alias: 'vigil_application_orders', description: 'orders is degraded: 1 of 3 instances UP, 2 required',
      details: { up: '1', required: '2', total: '3', since: n.since }, entity: 'orders', source: 'Vigil',
    },
  });
  assert.equal(opsgenieRequests({ ...n, type: 'APPLICATION_RECOVERED', up: 2 }, templates, config), [{
    url: 'https://api.opsgenie.com/v2/alerts/vigil_application_orders/close?identifierType=alias', headers: { authorization: 'GenieKey K' },
    body: { source: 'Vigil', note: 'orders has recovered: 2 of 3 instances UP, 2 required' },
  }]);
});

test.run();
