import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';
import { Receiver } from './receiver.js';
import { notifyKernel, registerInstance, setStatus } from './support.js';

const SLACK_PATH = '/services/T0ACME/B0ACME/SlackS3cretPath';
const TOKEN = '123456:TelegramT0kenValue';

/** `node bin/vigil.js --check-config` on a config file written from `yaml`. */
function checkConfig(yaml: string): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-notify-config-'));
  const file = join(dir, 'vigil.yaml');
  writeFileSync(file, yaml);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--config', file, '--check-config'], { cwd: dir });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('a template with an expression, a call or __proto__ is refused at start, naming the key', async () => {
  for (const [message, problem] of [
    ['#{T(java.lang.Runtime).getRuntime().exec("id")}', 'is not a field name: templates take placeholders only'],
    ['{{ status == "UP" ? "ok" : "bad" }}', 'is not a field name'],
    ['#{a ? b : c}', 'is not a field name'],
    ['{{__proto__}}', '"{{__proto__}}" is not a field name'],
    ['{{constructor}}', '"{{constructor}}" is not allowed'],
    ['{{metadata.constructor}}', 'is not allowed'],
    ['{{instance.registration.metadata}}', 'is not an allowed field (allowed: name, id, status'],
    ['{{name}', 'is not closed with "}}"'],
  ]) {
    let error: unknown;
    try {
      const tk = await startTestKernel({ plugins: ['notify', 'notify-slack'], config: { 'notify-slack': { 'webhook-url': 'https://hooks.example.com/x', message } } });
      await tk.stop();
    } catch (caught) {
      error = caught;
    }
    const problems = (error as { problems?: string[] } | undefined)?.problems ?? [];
    assert.is(problems.length, 1, `${message}: ${String(error)}`);
    assert.ok(problems[0]!.startsWith('plugin "notify-slack": notify-slack.message: '), problems[0]);
    assert.ok(problems[0]!.includes(problem), problems[0]);
  }
  // Every field of the allow-list, both syntaxes, SBA's default messages: accepted.
  const tk = await startTestKernel({ plugins: ['notify', 'notify-slack'], config: { 'notify-slack': {
    'webhook-url': 'https://hooks.example.com/x',
    message: '*#{name}* (#{id}) is *#{status}*, was {{ lastStatus }} {{instance.registration.healthUrl}} {{metadata.tags.env}} {{baseUrl}} {{event.version}}',
  } } });
  await tk.stop();
});

test('--check-config names each bad key and quotes no secret', async () => {
  const bad = await checkConfig([
    'plugins: [notify, notify-slack, notify-telegram, notify-webhook, notify-mail]',
    'notify-slack:',
    `  webhook-url: "hooks.slack.com${SLACK_PATH}"`,
    '  message: "{{name}} #{T(Runtime).exec()}"',
    'notify-telegram:',
    `  auth-token: "${TOKEN}"`,
    'notify-webhook:',
    '  url: https://hooks.example.com/v',
    '  secret: "whsec_NotBase64-WebhookS3cret!"',
    'notify-mail:',
    '  host: mail.example.com',
    '  password: { MailPassw0rd: 1 }',
  ].join('\n'));
  assert.is(bad.code, 1, bad.output);
  const lines = bad.output.trim().split('\n');
  assert.equal(lines.map((line) => line.replace(/^(vigil: plugin "[^"]+": \S+:).*$/, '$1')).sort(), [
    'vigil: plugin "notify-mail": notify-mail.password:',
    'vigil: plugin "notify-slack": notify-slack.message:',
    'vigil: plugin "notify-slack": notify-slack.webhook-url:',
    'vigil: plugin "notify-telegram": notify-telegram.chat-id:',
    'vigil: plugin "notify-webhook": notify-webhook.secret:',
  ], bad.output);
  for (const secret of ['SlackS3cretPath', 'TelegramT0kenValue', 'WebhookS3cret', 'MailPassw0rd']) assert.ok(!bad.output.includes(secret), `${secret} in: ${bad.output}`);

  const good = await checkConfig(['plugins: [notify, notify-slack]', 'notify-slack:', `  webhook-url: "https://hooks.slack.com${SLACK_PATH}"`].join('\n'));
  assert.is(good.code, 0, good.output);
  assert.ok(!good.output.includes('SlackS3cretPath'), good.output);
});

test('GET /notifications shows channels with targets masked; no secret in failures, logs or the answer', async () => {
  const receiver = await Receiver.start();
  // A receiver that echoes the request path in its error (Telegram's token is in that path).
  receiver.route = (req) => ({ status: 401, body: JSON.stringify({ ok: false, description: `Unauthorized for ${req.url}` }) });
  const tk = await notifyKernel(['notify-slack', 'notify-telegram'], {
    'notify-slack': { 'webhook-url': `http://127.0.0.1:1${SLACK_PATH}`, enabled: false },
    'notify-telegram': { 'auth-token': TOKEN, 'chat-id': '-100123', 'api-url': receiver.url },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    await receiver.received(1);
    const text = await eventually(async () => {
      const answer = await (await fetch(`${tk.url}/notifications`)).text();
      return answer.includes('"failed":1') ? answer : undefined;
    }, 'the failure to be recorded');
    const body = JSON.parse(text) as { channels: Array<Record<string, unknown>> };
    assert.equal(body.channels.map((c) => [c.name, c.target, c.enabled]), [
      ['notify-slack', 'http://127.0.0.1:1/******', false],
      ['notify-telegram', `${receiver.url}/bot******/sendMessage`, true],
    ]);
    const failure = body.channels[1]!.lastFailure as { reason: string };
    assert.is(failure.reason, 'HTTP 401: {"ok":false,"description":"Unauthorized for /bot******/sendMessage"}');
    for (const secret of ['SlackS3cretPath', 'TelegramT0kenValue']) {
      assert.ok(!text.includes(secret), `${secret} in GET /notifications`);
      assert.ok(!tk.logs().join('\n').includes(secret), `${secret} in the log`);
    }
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
