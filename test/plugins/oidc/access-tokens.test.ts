import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { call } from '../../support/http.js';
import { ACCESS_TOKEN_AUDIENCE, startProvider, type TestProvider } from './support/provider.js';
import { scriptAccessToken } from './support/script-token.js';
import { UserAgent } from './support/user-agent.js';
import { FakeClock, signIn, startVigil } from './support/vigil.js';

let provider: TestProvider;
let token: string;

test.before(async () => {
  provider = await startProvider({ accessTokenTtl: 600 });
  token = await scriptAccessToken(provider, 'robot');
});

test.after(() => provider?.close());

const bearer = (value: string) => ({ authorization: `Bearer ${value}`, accept: 'application/json' });

test('the provider issued a JWT access token for Vigil (the premise of what follows)', () => {
  assert.is(decodeProtectedHeader(token).typ, 'at+jwt');
  const claims = decodeJwt(token);
  assert.is(claims.aud, ACCESS_TOKEN_AUDIENCE);
  assert.is(claims.sub, 'robot');
  assert.is(claims.iss, provider.issuer);
});

test('a bearer access token from the issuer is accepted only with accept-access-tokens', async () => {
  const off = await startVigil(provider, { oidc: { audience: ACCESS_TOKEN_AUDIENCE } });
  const on = await startVigil(provider, { oidc: { 'accept-access-tokens': true, audience: ACCESS_TOKEN_AUDIENCE } });
  try {
    const refused = await call('GET', `${off.url}/whoami`, { headers: bearer(token) });
    assert.is(refused.status, 401);
    assert.is((refused.json as { message: string }).message, 'authentication required; sign in at /login');
    assert.is(refused.headers.get('www-authenticate'), null);

    const accepted = await call('GET', `${on.url}/whoami`, { headers: bearer(token) });
    assert.is(accepted.status, 200, accepted.text);
    assert.equal(accepted.json, { user: 'robot', principal: { name: 'robot', kind: 'user', via: 'oidc', groups: [] } });
    // Reading the registry works the same with it.
    assert.is((await call('GET', `${on.url}/instances`, { headers: bearer(token) })).status, 200);
    const none = await call('GET', `${on.url}/whoami`, { headers: { accept: 'application/json' } });
    assert.is(none.status, 401);
    assert.is(none.headers.get('www-authenticate'), 'Bearer realm="Vigil"');
  } finally {
    await off.stop();
    await on.stop();
  }
});

test('refused: another audience, a forged signature, an expired token, an ID token, a token that is no JWT', async () => {
  const clock = new FakeClock();
  const other = await startVigil(provider, { oidc: { 'accept-access-tokens': true, audience: 'someone-else' } });
  const vigil = await startVigil(provider, { clock, oidc: { 'accept-access-tokens': true, audience: ACCESS_TOKEN_AUDIENCE } });
  const defaultAudience = await startVigil(provider, { oidc: { 'accept-access-tokens': true } });
  try {
    const assertRefused = async (url: string, value: string, what: string) => {
      const res = await call('GET', `${url}/whoami`, { headers: bearer(value) });
      assert.is(res.status, 401, what);
      assert.is((res.json as { message: string }).message, 'invalid bearer token', what);
      assert.is(res.headers.get('www-authenticate'), 'Bearer realm="Vigil", error="invalid_token"', what);
    };
    await assertRefused(other.url, token, 'another audience');
    await assertRefused(defaultAudience.url, token, 'the default audience is the client id, not the API');
    const [header, payload, signature] = token.split('.') as [string, string, string];
    const flipped = `${signature.slice(0, -4)}${signature.slice(-4) === 'AAAA' ? 'BBBB' : 'AAAA'}`;
    await assertRefused(vigil.url, `${header}.${payload}.${flipped}`, 'a forged signature');
    const widened = Buffer.from(JSON.stringify({ ...decodeJwt(token), sub: 'admin' })).toString('base64url');
    await assertRefused(vigil.url, `${header}.${widened}.${signature}`, 'a changed payload');
    await assertRefused(vigil.url, 'not-a-jwt', 'no JWT');

    assert.is((await call('GET', `${vigil.url}/whoami`, { headers: bearer(token) })).status, 200);
    clock.advance(11 * 60_000);
    await assertRefused(vigil.url, token, 'expired (10 min, and 30 s of tolerance)');

    // Vigil's own ID token (the hint of a sign-out URL) has the right issuer, keys and audience, and is still no access token.
    const agent = new UserAgent();
    await signIn(agent, defaultAudience.url, 'alice');
    const out = await agent.send('POST', `${defaultAudience.url}/logout`, { headers: { accept: 'application/json' }, form: {} });
    const idToken = new URL((JSON.parse(out.body) as { location: string }).location).searchParams.get('id_token_hint')!;
    assert.is(decodeJwt(idToken).aud, 'vigil');
    await assertRefused(defaultAudience.url, idToken, 'an ID token');
  } finally {
    await other.stop();
    await vigil.stop();
    await defaultAudience.stop();
  }
});

test.run();
