import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isSecretKey, maskSecrets } from '../../config/mask-secrets.js';
import { startTestKernel } from '../../bin/testing.js';
import { vigilVersion } from '../../core/version.js';
import { call } from '../support/http.js';

test('isSecretKey: by the last word of the key, and webhook URLs', () => {
  for (const key of ['password', 'default-password', 'user-password', 'api-key', 'routing-key', 'auth-token', 'token', 'token-hash', 'secret', 'webhook-url', 'webhookUrl', 'clientSecret', 'credentials'])
    assert.ok(isSecretKey(key), key);
  for (const key of ['key-prefix', 'metadata-keys-to-sanitize', 'token-file', 'ca-file', 'username', 'user', 'url', 'chat-id', 'secure', 'ignored-headers', 'instance-auth'])
    assert.not.ok(isSecretKey(key), key);
});

test('maskSecrets: secret keys, header values, URL passwords and notifier URL paths; nothing else changes', () => {
  const shown = maskSecrets({
    port: 8080,
    'cluster-redis': { url: 'redis://:s3cret@redis:6379/0', 'key-prefix': 'vigil:' },
    'notify-webhook': { url: 'https://hooks.example.com/in/abc?sig=1', secret: 'whsec_x', headers: { Authorization: 'Bearer t', 'X-Team': 'ops' } },
    'notify-alertmanager': { url: 'http://alertmanager:9093/' },
    'basic-auth': { users: [{ username: 'ops', password: 'pw', role: 'admin' }], tokens: [{ name: 'ci', 'token-hash': 'sha256$00' }] },
    'metadata-keys-to-sanitize': ['.*password$'],
    plain: { when: new Date(0), fn: () => 1, nothing: null },
  });
  assert.equal(shown, {
    port: 8080,
    'cluster-redis': { url: 'redis://:******@redis:6379/0', 'key-prefix': 'vigil:' },
    'notify-webhook': { url: 'https://hooks.example.com/******', secret: '******', headers: { Authorization: '******', 'X-Team': '******' } },
    'notify-alertmanager': { url: 'http://alertmanager:9093/' },
    'basic-auth': { users: [{ username: 'ops', password: '******', role: 'admin' }], tokens: [{ name: 'ci', 'token-hash': '******' }] },
    'metadata-keys-to-sanitize': ['.*password$'],
    plain: { when: '1970-01-01T00:00:00.000Z', nothing: null },
  });
});

test('GET /ui/about: version, plugins in list order, the effective config with defaults; no secret in the answer', async () => {
  const secrets = ['hunter2-admin', 'instance-pw-9', 'tok-123456', 'map-pw-7'];
  const tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'ui', 'basic-auth', 'cors'],
    config: {
      'basic-auth': { users: [{ username: 'ops', password: secrets[0] }], tokens: [{ name: 'ci', token: secrets[2] }] },
      cors: { 'allowed-origins': 'https://ops.example.com' },
      'instance-auth': { 'default-user-name': 'actuator', 'default-password': secrets[1], 'service-map': { shop: { 'user-name': 'u', 'user-password': secrets[3] } } },
      sse: { 'ping-interval': 'PT20S' },
    },
  });
  try {
    const auth = { authorization: `Basic ${Buffer.from(`ops:${secrets[0]}`).toString('base64')}` };
    assert.is((await call('GET', `${tk.url}/ui/about`)).status, 401, 'as protected as everything else');
    const reply = await call('GET', `${tk.url}/ui/about`, { headers: auth });
    assert.is(reply.status, 200);
    assert.is(reply.headers.get('cache-control'), 'no-store');
    for (const secret of secrets) assert.not.match(reply.text, secret);
    const about = reply.json as { version: string; plugins: { name: string; version: string | null; source: string }[]; config: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- read key by key
    assert.is(about.version, vigilVersion());
    assert.equal(about.plugins.map((plugin) => plugin.name), ['rest-api', 'sse', 'ui', 'basic-auth', 'cors']);
    assert.equal(about.plugins.find((plugin) => plugin.name === 'ui'), { name: 'ui', version: vigilVersion(), source: 'builtin', entry: 'ui' });
    assert.equal(about.config.plugins, ['rest-api', 'sse', 'ui', 'basic-auth', 'cors']);
    assert.is(about.config.sse['ping-interval'], 20_000, 'validated: durations in ms');
    assert.is(about.config.port, 0);
    assert.equal(about.config['event-store'], { 'max-events-per-instance': 100, 'retention-after-deregistration': 3_600_000, 'max-deregistered-instances': 10_000, 'max-details-bytes': 65_536 });
    assert.is(about.config['instance-auth']['default-password'], '******');
    assert.is(about.config['instance-auth']['default-user-name'], 'actuator');
    assert.is(about.config['instance-auth']['service-map'].shop['user-password'], '******');
    assert.equal(about.config['basic-auth'].users, [{ username: 'ops', password: '******' }], 'no role given: none shown (admin without an access section)');
    assert.equal(about.config['basic-auth'].tokens, [{ name: 'ci', 'token-hash': '******' }]);
  } finally {
    await tk.stop();
  }
});

test.run();
