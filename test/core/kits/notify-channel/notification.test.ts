import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  TemplateError, escapes, groupLines, joinLines, maskedUrl, parseTemplate, renderTemplate, type GroupNotification,
  type InstanceNotification,
} from '../../../../core/kits/notify-channel/index.js';

function change(overrides: Partial<InstanceNotification> = {}, name = 'orders', id = '1a2b3c4d5e6f'): InstanceNotification {
  return {
    kind: 'instance', id: `${id}-7`, type: 'STATUS_CHANGED', from: 'UP', to: 'DOWN', version: 7, timestamp: '2026-11-22T10:00:00Z', reminder: 0, coalesced: 0,
    baseUrl: 'https://vigil.example',
    instance: {
      id, name, healthUrl: 'http://h:8080/actuator/health', managementUrl: 'http://h:8080/actuator', serviceUrl: null, source: 'http-api',
      metadata: { 'tags.env': 'prod', 'user.password': '******' }, statusInfo: { status: 'DOWN', details: {} },
    },
    ...overrides,
  };
}

test('templates: SBA\'s default messages in either syntax, every allowed field, metadata, missing values empty', () => {
  const n = change();
  const render = (source: string) => renderTemplate(parseTemplate(source), n, escapes.plain);
  assert.is(render('*#{name}* (#{id}) is *#{status}*'), '*orders* (1a2b3c4d5e6f) is *DOWN*');
  assert.is(render('<strong>#{name}</strong>/#{id} is <strong>#{status}</strong>'), '<strong>orders</strong>/1a2b3c4d5e6f is <strong>DOWN</strong>');
  assert.is(render('#{instance.registration.name}/#{instance.id} is #{instance.statusInfo.status}'), 'orders/1a2b3c4d5e6f is DOWN');
  assert.is(render('{{ name }} changed from {{lastStatus}} to {{event.statusInfo.status}} at {{timestamp}} (v{{version}}, {{type}})'),
    'orders changed from UP to DOWN at 2026-11-22T10:00:00Z (v7, STATUS_CHANGED)');
  assert.is(render('{{metadata.tags.env}}|{{metadata.user.password}}|{{metadata.missing}}|{{serviceUrl}}|{{baseUrl}}'), 'prod|******|||https://vigil.example');
  assert.is(render('no placeholders } {'), 'no placeholders } {');
  assert.is(render('{{name}}{{name}}'), 'ordersorders');
  const long = renderTemplate(parseTemplate('{{name}}'), change({}, 'x'.repeat(5000)), escapes.plain);
  assert.is(long.length, 300);
  assert.ok(long.endsWith('…'));
});

test('templates: anything but a field name is refused, saying what', () => {
  for (const [source, message] of [
    ['#{T(java.lang.Runtime).getRuntime().exec("id")}', 'is not a field name'],
    ['#{name.toUpperCase()}', 'is not a field name'],
    ['{{#each items}}x{{/each}}', 'is not a field name'],
    ['{{> partial}}', 'is not a field name'],
    ['{{name | upper}}', 'is not a field name'],
    ['{{prototype}}', 'is not allowed'],
    ['{{metadata.__proto__}}', 'is not allowed'],
    ['{{instance.registration.metadata}}', 'is not an allowed field'],
    ['#{name', 'is not closed with "}"'],
  ]) {
    assert.throws(() => parseTemplate(source!), (error: unknown) => error instanceof TemplateError && error.message.includes(message!), source);
  }
});

test('escapers: a hostile name is shown, never acted on, in each format', () => {
  const hostile = '<!channel> </b><script>x</script> @everyone [a](https://evil.example) *b* & "q" \'s\'';
  assert.is(escapes.mrkdwn(hostile), '&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b* &amp; "q" \'s\'');
  assert.is(escapes.html(hostile), '&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b* &amp; &quot;q&quot; &#39;s&#39;');
  assert.is(escapes.markdown(hostile), '\\<!channel\\> \\</b\\>\\<script\\>x\\</script\\> @\u200beveryone \\[a\\]\\(https://evil.example\\) \\*b\\* & "q" \'s\'');
  assert.is(escapes.teams(hostile), '<\u200b!channel> <\u200b/b><\u200bscript>x<\u200b/script> @\u200beveryone [a]\u200b(https://evil.example) *b* & "q" \'s\'');
  assert.is(escapes.oneLine('a\r\nBcc: evil@example.com\u0000'), 'a Bcc: evil@example.com ');
});

test('group lines: one per application and status, ids capped per line, lines capped per message', () => {
  const items = [
    ...Array.from({ length: 12 }, (_, n) => change({}, 'shop', `s${String(n).padStart(11, '0')}`)),
    change({ to: 'UP' }, 'billing', 'b00000000001'),
    change({ type: 'REGISTERED', to: 'UNKNOWN' }, 'mailer', 'm00000000001'),
    change({ type: 'REGISTERED', to: 'UNKNOWN' }, 'mailer', 'm00000000002'),
  ];
  const group: GroupNotification = { kind: 'group', id: 'g', timestamp: '', items, reminder: false, baseUrl: '' };
  assert.equal(groupLines(group, escapes.plain), [
    `12 instances of shop are DOWN: ${items.slice(0, 10).map((i) => i.instance.id).join(', ')} and 2 more`,
    'billing (b00000000001) is UP',
    '2 instances of mailer registered: m00000000001, m00000000002',
  ]);
  const wide: GroupNotification = { ...group, items: Array.from({ length: 30 }, (_, n) => change({}, `app-${n}`)) };
  const lines = groupLines(wide, escapes.plain);
  assert.is(lines.length, 20);
  assert.is(lines[19], 'and 11 more lines');
  assert.is(joinLines(['<b>a</b>', 'bbbb', 'cccc'], 16), '<b>a</b>\nbbbb\n…');
});

test('maskedUrl: the origin only, never a path, query or credentials', () => {
  assert.is(maskedUrl('https://hooks.slack.com/services/T0/B0/secret'), 'https://hooks.slack.com/******');
  assert.is(maskedUrl('https://user:pw@example.com/'), 'https://example.com/******');
  assert.is(maskedUrl('https://example.com/'), 'https://example.com/');
  assert.is(maskedUrl('http://example.com?token=x'), 'http://example.com/******');
  assert.is(maskedUrl('not a url'), '******');
});

test.run();
