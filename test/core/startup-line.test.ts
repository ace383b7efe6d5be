import { hostname } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openableUrls } from '../../core/listen-urls.js';
import { startTestKernel } from '../../bin/testing.js';
import { vigilVersion } from '../../core/version.js';
import { call } from '../support/http.js';
import { repoRoot } from '../support/paths.js';

/**
 * Issue 29, item 5: start-up says where to go. On a wildcard address the line names URLs a person
 * can open; notify's links back to Vigil without `notify.base-url` are a warning naming the key;
 * every built-in plugin shows its version the same way, in that line and on the About page.
 */
const listening = (logs: readonly string[]) => logs.find((line) => line.includes('listening on'))!;

test('the URLs a person can open: the host name and the loopback form for a wildcard address, none beside a specific one', () => {
  assert.equal(openableUrls('0.0.0.0', 8080, '', 'vigil-1.example'), ['http://vigil-1.example:8080', 'http://127.0.0.1:8080']);
  assert.equal(openableUrls('::', 8080, '/admin', 'vigil-1'), ['http://vigil-1:8080/admin', 'http://[::1]:8080/admin']);
  assert.equal(openableUrls('[::]', 9000, '', 'vigil-1'), ['http://vigil-1:9000', 'http://[::1]:9000']);
  assert.equal(openableUrls('127.0.0.1', 8080, '', 'vigil-1'), []);
  assert.equal(openableUrls('10.0.0.5', 8080, '', 'vigil-1'), []);
});

test('listening on 0.0.0.0: the start-up line names the host name and loopback URLs, and every built-in with Vigil\'s version', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'sse', 'monitor', 'basic-auth', 'ui'], config: { host: '0.0.0.0', 'basic-auth': { users: [{ username: 'ops', password: 'startup-line-test' }] } } });
  try {
    const port = new URL(tk.url).port;
    const line = listening(tk.logs());
    assert.match(line, `listening on http://0.0.0.0:${port} (every address: open http://${hostname()}:${port} or http://127.0.0.1:${port})`);
    const version = vigilVersion();
    assert.match(line, `rest-api@${version} (builtin), sse@${version} (builtin), monitor@${version} (builtin), basic-auth@${version} (builtin), ui@${version} (builtin)`);
  } finally {
    await tk.stop();
  }
});

test('listening on 127.0.0.1: the line names that URL alone', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'] });
  try {
    assert.match(listening(tk.logs()), new RegExp(`listening on ${tk.url.replace(/[.]/g, '\\.')}(?! \\()`));
  } finally {
    await tk.stop();
  }
});

test('the About page shows every built-in with Vigil\'s version, and a plugin package with its own', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'sse', 'ui', 'metrics', 'vigil-plugin-fixture'], baseDir: join(repoRoot, 'test', 'fixtures', 'packages') });
  try {
    const about = (await call('GET', `${tk.url}/ui/about`)).json as { plugins: { name: string; version: string | null; source: string }[] };
    assert.equal(about.plugins.map(({ name, version, source }) => [name, version, source]), [
      ['rest-api', vigilVersion(), 'builtin'], ['sse', vigilVersion(), 'builtin'], ['ui', vigilVersion(), 'builtin'], ['metrics', vigilVersion(), 'builtin'],
      ['package-fixture', '1.2.3', 'package'],
    ]);
    assert.match(listening(tk.logs()), 'package-fixture@1.2.3 (package)');
  } finally {
    await tk.stop();
  }
});

const linkBack = /notify\.base-url is not set/;

test('notify channels that link back to Vigil, without notify.base-url: a warning naming the key and the URL they would use', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'notify', 'notify-alertmanager', 'notify-webhook'],
    config: { 'notify-alertmanager': { url: 'http://127.0.0.1:9' }, 'notify-webhook': { url: 'http://127.0.0.1:9/hook' } },
  });
  try {
    const warnings = tk.logs().filter((line) => linkBack.test(line));
    assert.is(warnings.length, 1, tk.logs().join('\n'));
    assert.match(warnings[0]!, 'warn');
    assert.match(warnings[0]!, `notify.base-url is not set: notify-alertmanager links back to Vigil with ${tk.url}, which the people and tools it notifies may not reach; set notify.base-url to the URL they open Vigil at`);
  } finally {
    await tk.stop();
  }
});

test('no such warning with notify.base-url set, with a mail channel that has its own base-url, or with channels that do not link back', async () => {
  for (const setup of [
    { plugins: ['rest-api', 'notify', 'notify-alertmanager'], config: { notify: { 'base-url': 'https://vigil.example.com' }, 'notify-alertmanager': { url: 'http://127.0.0.1:9' } } },
    { plugins: ['rest-api', 'notify', 'notify-webhook'], config: { 'notify-webhook': { url: 'http://127.0.0.1:9/hook' } } },
    { plugins: ['rest-api', 'notify', 'notify-mail'], config: { 'notify-mail': { host: '127.0.0.1', port: 9, from: 'vigil@example.com', to: ['ops@example.com'], 'base-url': 'https://vigil.example.com' } } },
  ]) {
    const tk = await startTestKernel(setup);
    try {
      assert.equal(tk.logs().filter((line) => linkBack.test(line)), [], setup.plugins.join(', '));
    } finally {
      await tk.stop();
    }
  }
});

test('a channel whose message template uses {{baseUrl}} links back too', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'notify', 'notify-slack'],
    config: { 'notify-slack': { 'webhook-url': 'http://127.0.0.1:9/slack', message: '{{name}} is {{status}}: {{baseUrl}}/#/instances/{{id}}' } },
  });
  try {
    assert.match(tk.logs().filter((line) => linkBack.test(line)).join('\n'), 'notify-slack links back');
  } finally {
    await tk.stop();
  }
});

test.run();
