import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import type { DaemonAbout } from '../../../core/domain/index.js';
import { checkPlugin, startTestKernel } from '../../../bin/testing.js';
import { oidcSchema } from '../../../plugins/oidc/config.js';

const check = (section: unknown) => checkPlugin('oidc', section === undefined ? {} : { oidc: section });
const MINIMAL = { issuer: 'https://login.example.com/realms/ops', 'client-id': 'vigil' };

test('defaults: the issue\'s keys, scopes openid profile email, 8 h sessions idling out after 1 h', async () => {
  assert.equal(await oidcSchema.validate(MINIMAL), {
    ...MINIMAL,
    scopes: ['openid', 'profile', 'email'],
    'username-claim': 'preferred_username',
    'groups-claim': 'groups',
    'base-url': '',
    session: { ttl: 8 * 3_600_000, 'idle-timeout': 3_600_000 },
    'accept-access-tokens': false,
    audience: '',
  });
  const full = await oidcSchema.validate({
    ...MINIMAL, 'client-secret': 's3cret', scopes: ['openid', 'groups'], 'groups-claim': 'realm_access.roles', 'base-url': 'https://vigil.example.com/admin/',
    session: { ttl: 'PT12H', 'idle-timeout': '30m' }, 'accept-access-tokens': true, audience: 'vigil-api',
  });
  assert.is(full['base-url'], 'https://vigil.example.com/admin');
  assert.equal(full.session, { ttl: 12 * 3_600_000, 'idle-timeout': 1_800_000 });
  assert.equal(await check({ ...MINIMAL, 'base-url': 'https://vigil.example.com' }), []);
});

test('http is refused for an issuer or a base-url that is not loopback; loopback is fine', async () => {
  assert.equal(await check({ ...MINIMAL, issuer: 'http://login.example.com/realms/ops' }), [
    'plugin "oidc": oidc.issuer: must be https:// (http:// only on a loopback address such as 127.0.0.1): tokens and the sign-in page must not travel in clear text',
  ]);
  assert.equal(await check({ ...MINIMAL, 'base-url': 'http://vigil.example.com' }), [
    'plugin "oidc": oidc.base-url: must be https:// (http:// only on a loopback address such as 127.0.0.1): the session cookie must be Secure on anything but loopback',
  ]);
  for (const loopback of ['http://127.0.0.1:8081', 'http://localhost:8081/realms/x', 'http://[::1]:8081']) {
    assert.equal(await check({ ...MINIMAL, issuer: loopback, 'base-url': loopback }), [], loopback);
  }
});

test('each mistake is named: missing keys, scopes without openid, a bad claim path, an unknown key, a URL with a query', async () => {
  assert.equal(await check(undefined), ['plugin "oidc": oidc: the oidc section is required: issuer and client-id at least']);
  assert.equal(await check({}), [
    'plugin "oidc": oidc.issuer: is required (the identity provider\'s issuer URL)',
    'plugin "oidc": oidc.client-id: is required (the client registered for Vigil at the provider)',
  ]);
  assert.equal(await check({ ...MINIMAL, scopes: ['profile'] }), ['plugin "oidc": oidc.scopes: must include openid']);
  assert.equal(await check({ ...MINIMAL, 'groups-claim': 'realm_access..roles' }), [
    'plugin "oidc": oidc.groups-claim: must be a claim name or a dotted path such as realm_access.roles (a literal dot is written \\.)',
  ]);
  assert.equal(await check({ ...MINIMAL, 'client-secret': '' }), ['plugin "oidc": oidc.client-secret: must not be empty (omit it for a public client)']);
  assert.equal(await check({ ...MINIMAL, 'base-url': 'https://vigil.example.com/?x=1' }), ['plugin "oidc": oidc.base-url: must be Vigil\'s public URL without a query or fragment']);
  assert.equal(await check({ ...MINIMAL, issuer: 'login.example.com' }), ['plugin "oidc": oidc.issuer: must be an absolute https:// URL (got "login.example.com")']);
  assert.equal(await check({ ...MINIMAL, sesion: { ttl: '1h' } }), ['plugin "oidc": oidc: unknown key(s): sesion (did you mean "session"?)']);
  assert.equal(await check({ ...MINIMAL, session: { ttl: '1h', idle: '5m' } }), ['plugin "oidc": oidc.session: unknown key(s): idle']);
});

test('the About page shows the section with the client secret masked; a provider that is down does not stop the start', async () => {
  let about: DaemonAbout | undefined;
  const probe = definePlugin({ name: 'about-probe', configKey: null, setup() {}, start(ctx) { about = ctx.settings.about(); } }) as VigilPlugin<never>;
  const tk = await startTestKernel({
    plugins: ['rest-api', 'oidc', probe],
    config: { 'log-level': 'info', oidc: { issuer: 'http://127.0.0.1:1/realms/ops', 'client-id': 'vigil', 'client-secret': 'about-Secret-99' } },
  });
  try {
    const section = about!.config.oidc as Record<string, unknown>;
    assert.is(section['client-secret'], '******');
    assert.is(section.issuer, 'http://127.0.0.1:1/realms/ops');
    assert.not.ok(JSON.stringify(about).includes('about-Secret-99'));
    assert.is((await fetch(`${tk.url}/instances`)).status, 401);
  } finally {
    await tk.stop();
  }
});

test.run();
