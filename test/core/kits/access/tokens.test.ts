import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../../bin/testing.js';
import { basicAuthSchema } from '../../../../plugins/basic-auth/config.js';
import { ACCESS, ELEVATED, basicAuth, bearer, call, errorOf } from './support.js';

test('basic-auth.tokens[].expires: an expired token answers 401 "token expired"; one not yet expired works, as subject token:<name>', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'basic-auth'],
    config: {
      'basic-auth': basicAuth([
        { name: 'old', token: 'old-token', expires: '2020-01-31' },
        { name: 'later', token: 'later-token', expires: '2999-01-01T00:00:00Z', role: 'viewer' },
      ]),
      access: ACCESS,
    },
  });
  try {
    const expired = await call('GET', `${tk.url}/instances`, { headers: bearer('old-token') });
    assert.equal(errorOf(expired), { status: 401, body: { status: 401, error: 'Unauthorized', message: 'token expired', path: '/instances' } });
    assert.match(expired.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    // Asked again (a verification is remembered for minutes): still expired.
    assert.is((await call('GET', `${tk.url}/access/me`, { headers: bearer('old-token') })).status, 401);
    assert.equal((await call('GET', `${tk.url}/access/me`, { headers: bearer('later-token') })).json,
      { name: 'later', kind: 'token', via: 'token', groups: [], grants: [{ role: 'viewer', applications: ['*'] }], ...ELEVATED });
    assert.equal((await call('GET', `${tk.url}/access/me`, { headers: bearer('orders-view-token') })).json,
      { name: 'orders-view', kind: 'token', via: 'token', groups: [], grants: [{ role: 'viewer', applications: ['orders'] }], ...ELEVATED });
  } finally {
    await tk.stop();
  }
});

test('a token expires while in use: the next request is 401 even though its verification is remembered', async () => {
  const { Authenticator } = await import('../../../../plugins/basic-auth/authenticator.js');
  let now = Date.parse('2030-01-01T00:00:00Z');
  const config = await basicAuthSchema.validate({ tokens: [{ name: 'soon', token: 'soon-token', expires: '2030-01-01T00:01:00Z' }] });
  const log = { error() {}, warn() {}, info() {}, debug() {}, child() { return log; } };
  const authenticator = await Authenticator.create(config, log, { now: () => now });
  const credentials = { kind: 'bearer' as const, token: 'soon-token' };
  assert.equal(await authenticator.authenticate(credentials, '127.0.0.1'), { kind: 'verified', principal: { label: 'token:soon', role: undefined, token: 'soon', expiresAt: Date.parse('2030-01-01T00:01:00Z') } });
  now += 60_000;
  assert.equal(await authenticator.authenticate(credentials, '127.0.0.1'), { kind: 'expired' });
});

test('expires: ISO dates and date-times with a zone; anything else is named', async () => {
  const ok = await basicAuthSchema.validate({ tokens: [{ name: 'a', token: 't', expires: '2027-01-31' }, { name: 'b', token: 'u', expires: new Date('2027-01-31T18:00:00Z') }] });
  assert.equal(ok.tokens.map((token) => token.expires), ['2027-01-31', '2027-01-31T18:00:00.000Z']);
  for (const bad of ['tomorrow', '2027-13-01', '2027-01-31T18:00:00', 20270131]) {
    try {
      await basicAuthSchema.validate({ tokens: [{ name: 'a', token: 't', expires: bad }] });
      assert.unreachable(`accepted ${String(bad)}`);
    } catch (error) {
      assert.match((error as Error).message, /tokens\[0\]\.expires must be an ISO date \(2027-01-31\) or date-time with a zone/);
    }
  }
});

test('access: subjects, roles and keys are checked', async () => {
  const { kernelSchema } = await import('../../../../config/kernel-schema.js');
  for (const [access, problem] of [
    [{ grants: [{ subjects: ['alice'], role: 'viewer' }] }, /subjects\[0\] must be user:NAME, group:NAME, token:NAME or "\*" \(got alice\)/],
    [{ grants: [{ subjects: ['user:alice'], role: 'owner' }] }, /role must be one of the following values: viewer, operator, admin, registration, metrics/],
    [{ grants: [{ subjects: [], role: 'viewer' }] }, /subjects field must have at least 1 items/],
    [{ grant: [] }, /unknown key\(s\): grant/],
  ] as const) {
    try {
      await kernelSchema.validate({ access }, { abortEarly: false });
      assert.unreachable(JSON.stringify(access));
    } catch (error) {
      assert.match((error as Error).message, problem);
    }
  }
  const valid = await kernelSchema.validate({ access: { grants: [{ subjects: ['*'], role: 'viewer' }] } });
  assert.equal(valid.access, { grants: [{ subjects: ['*'], role: 'viewer', applications: ['*'] }], 'sensitive-endpoints': ['heapdump'], 'admin-endpoints': ['shutdown'] });
  assert.is((await kernelSchema.validate({})).access, undefined);
});

test.run();
