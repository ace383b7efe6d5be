import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { claimAt, listClaim, parseClaimPath, stringClaim } from '../../../plugins/oidc/claim-path.js';
import { startProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { signIn, startVigil, whoIs } from './support/vigil.js';

test('groups from the ID token: userinfo is not asked', async () => {
  const provider = await startProvider({ groups: { bob: ['ops'] }, claimsInIdToken: true });
  const tk = await startVigil(provider);
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'bob');
    assert.equal(await whoIs(agent, tk.url), { name: 'bob', kind: 'user', via: 'oidc', groups: ['ops'] });
    assert.is(provider.requestsTo('/me'), 0, provider.requests.join());
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('groups missing from the ID token are read from userinfo', async () => {
  const provider = await startProvider({ groups: { carol: ['payments-oncall', 'ops'] } });
  const tk = await startVigil(provider);
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'carol');
    assert.equal(await whoIs(agent, tk.url), { name: 'carol', kind: 'user', via: 'oidc', groups: ['payments-oncall', 'ops'] });
    assert.is(provider.requestsTo('/me'), 1);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('username-claim and a groups-claim no one sends: the claim named, and no groups', async () => {
  const provider = await startProvider({ groups: { dave: ['ops'] }, claimsInIdToken: true });
  const tk = await startVigil(provider, { oidc: { 'username-claim': 'email', 'groups-claim': 'realm_access.roles' } });
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'dave');
    assert.equal(await whoIs(agent, tk.url), { name: 'dave@example.test', kind: 'user', via: 'oidc', groups: [] });
    // Neither was in the ID token's claims path: userinfo was asked, and had no roles either.
    assert.is(provider.requestsTo('/me'), 1);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('a confidential client signs in with its secret; a wrong secret fails the sign-in, and the secret is never logged', async () => {
  const provider = await startProvider({ clientSecret: 'client-Secret-5150' });
  const good = await startVigil(provider, { oidc: { 'client-secret': 'client-Secret-5150' } });
  const bad = await startVigil(provider, { oidc: { 'client-secret': 'wrong-Secret-0000' } });
  try {
    const agent = new UserAgent();
    await signIn(agent, good.url, 'erin');
    assert.equal(await whoIs(agent, good.url), { name: 'erin', kind: 'user', via: 'oidc', groups: [] });
    const refused = await new UserAgent().open(`${bad.url}/login`, { login: 'erin' });
    assert.is(refused.status, 400);
    assert.match(refused.body, '<h1>Sign-in failed</h1>');
    assert.ok(bad.logs().some((line) => line.includes('refused the code: invalid_client')), bad.logs().join('\n'));
    for (const line of [...good.logs(), ...bad.logs()]) assert.not.ok(/client-Secret-5150|wrong-Secret-0000/.test(line), line);
  } finally {
    await good.stop();
    await bad.stop();
    await provider.close();
  }
});

test('claim paths: a dot nests, \\. is a literal dot; a string is a list of one', () => {
  assert.equal(parseClaimPath('groups'), ['groups']);
  assert.equal(parseClaimPath('realm_access.roles'), ['realm_access', 'roles']);
  assert.equal(parseClaimPath('https://vigil\\.example/groups'), ['https://vigil.example/groups']);
  assert.equal(parseClaimPath('resource_access.vigil\\.ui.roles'), ['resource_access', 'vigil.ui', 'roles']);
  assert.is(parseClaimPath(''), undefined);
  assert.is(parseClaimPath('a..b'), undefined);
  assert.is(parseClaimPath('a.'), undefined);
  const claims = { realm_access: { roles: ['admin', 'admin', 7, ''] }, 'a.b': 'x', name: 'Eve', nested: { list: 'solo' } };
  assert.equal(listClaim(claims, parseClaimPath('realm_access.roles')!), ['admin']);
  assert.equal(listClaim(claims, parseClaimPath('a\\.b')!), ['x']);
  assert.equal(listClaim(claims, parseClaimPath('nested.list')!), ['solo']);
  assert.is(listClaim(claims, parseClaimPath('realm_access.missing')!), undefined);
  assert.is(listClaim(claims, parseClaimPath('name.roles')!), undefined);
  assert.is(stringClaim(claims, ['name']), 'Eve');
  assert.is(stringClaim(claims, ['realm_access']), undefined);
  assert.is(claimAt(claims, ['toString']), undefined, 'only own properties');
});

test.run();
