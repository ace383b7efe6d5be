import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../../bin/testing.js';
import { permissionsOf, type AccessMe } from '../../../../core/domain/index.js';
import { ACCESS, ELEVATED, accessKernel, as, basicAuth, bearer, call, registerAt } from './support.js';

/** The caller's permissions, read from its own `GET /access/me` as the dashboard reads them. */
async function permissionsFrom(url: string, headers: Record<string, string> = {}) {
  const reply = await call('GET', `${url}/access/me`, { headers });
  assert.is(reply.status, 200, reply.text);
  return permissionsOf(reply.json as AccessMe);
}

test('permissionsOf (the dashboard\'s): an operator acts within its applications, a viewer nowhere, an admin everywhere, sensitive and admin endpoints for admin only', async () => {
  const tk = await accessKernel();
  try {
    const alice = await permissionsFrom(tk.url, as('alice'));
    assert.ok(alice.may('instances.deregister', 'payments-api'));
    assert.not.ok(alice.may('instances.deregister', 'orders'));
    assert.ok(alice.may('maintenance.manage', 'payments-*'), 'a window over its own glob');
    assert.not.ok(alice.may('maintenance.manage', '*'));
    assert.ok(alice.may('applications.refresh') && alice.may('notifications.manage'), 'actions about no single application');
    assert.ok(alice.mayUseEndpoint('loggers', true, 'payments-api'));
    assert.not.ok(alice.mayUseEndpoint('loggers', true, 'orders'));
    assert.not.ok(alice.mayUseEndpoint('shutdown', true, 'payments-api'), 'an admin endpoint');
    assert.ok(alice.mayUseEndpoint('shutdown', false, 'payments-api'), 'shutdown is admin-only to write, not to read');
    assert.not.ok(alice.mayUseEndpoint('heapdump', false, 'payments-api'), 'a sensitive endpoint');
    assert.not.ok(alice.may('audit.read'));

    const bob = await permissionsFrom(tk.url, as('bob'));
    assert.ok(bob.may('applications.read', 'payments-api') && bob.mayUseEndpoint('loggers', false, 'payments-api'));
    for (const action of ['instances.deregister', 'applications.deregister', 'applications.refresh', 'notifications.manage', 'maintenance.manage'] as const) {
      assert.not.ok(bob.may(action), action);
    }
    assert.not.ok(bob.mayUseEndpoint('loggers', true, 'payments-api'));

    const root = await permissionsFrom(tk.url, as('root'));
    assert.ok(root.mayUseEndpoint('heapdump', false, 'anything') && root.mayUseEndpoint('shutdown', true, 'anything') && root.may('audit.read'));

    const nobody = await permissionsFrom(tk.url, as('nobody'));
    assert.not.ok(nobody.may('applications.read') || nobody.may('instances.deregister', 'payments-api'));

    const ci = await permissionsFrom(tk.url, bearer('ci-token'));
    assert.ok(ci.may('instances.deregister', 'orders'), 'a role without applications covers them all');
    // Each answer agrees with the kernel's own decision.
    assert.is((await call('POST', `${tk.url}/applications`, { headers: as('bob') })).status, 403);
    assert.is((await call('POST', `${tk.url}/applications`, { headers: as('alice') })).status, 200);
  } finally {
    await tk.stop();
  }
});

test('GET /access/me without an authentication plugin: the anonymous caller, admin over everything, so the dashboard shows every button', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { access: { grants: [{ subjects: ['*'], role: 'viewer' }] } } });
  try {
    const reply = await call('GET', `${tk.url}/access/me`);
    assert.equal(reply.json, { name: 'anonymous', kind: 'anonymous', via: null, groups: [], grants: [{ role: 'admin', applications: ['*'] }], ...ELEVATED });
    const anonymous = permissionsOf(reply.json as AccessMe);
    assert.ok(anonymous.may('instances.deregister', 'orders') && anonymous.mayUseEndpoint('heapdump', false, 'orders') && anonymous.mayUseEndpoint('shutdown', true, 'orders'));
  } finally {
    await tk.stop();
  }
});

test('a reload of access applies to the next request: the new grants decide, and GET /access/me tells them', async () => {
  const tk = await accessKernel();
  try {
    const id = await registerAt(tk, 'orders', { origin: 'http://127.0.0.1:9' });
    assert.is((await call('GET', `${tk.url}/instances/${id}`, { headers: as('bob') })).status, 404, 'orders is not bob\'s yet');
    const grants = [...ACCESS.grants, { subjects: ['user:bob'], role: 'viewer', applications: ['orders'] }];
    const report = await tk.reload({ 'basic-auth': basicAuth(), access: { ...ACCESS, grants, 'sensitive-endpoints': ['env'] } });
    assert.equal(report, { applied: ['access'], restart: [], failed: [] });
    assert.is((await call('GET', `${tk.url}/instances/${id}`, { headers: as('bob') })).status, 200);
    const me = (await call('GET', `${tk.url}/access/me`, { headers: as('bob') })).json as AccessMe;
    assert.equal(me.grants, [{ role: 'viewer', applications: ['payments-*'] }, { role: 'viewer', applications: ['orders'] }]);
    assert.equal([me.sensitiveEndpoints, me.adminEndpoints], [['env'], ['shutdown']]);
    // Back to the first section: bob no longer sees orders, exactly as an unknown instance.
    await tk.reload({ 'basic-auth': basicAuth(), access: ACCESS });
    assert.is((await call('GET', `${tk.url}/instances/${id}`, { headers: as('bob') })).status, 404);
  } finally {
    await tk.stop();
  }
});

test.run();
