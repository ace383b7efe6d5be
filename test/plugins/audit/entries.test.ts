import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, eventually } from '../../support/http.js';
import { ADMIN, CLIENT, OPERATOR, VIEWER, basic, startAudit, type AuditKernel, type Entry } from './support.js';

const JSON_BODY = { 'content-type': 'application/json' };

async function withAudit(run: (a: AuditKernel) => Promise<void>, options: Parameters<typeof startAudit>[0] = {}): Promise<void> {
  const a = await startAudit(options);
  try {
    await run(a);
  } finally {
    await a.stop();
  }
}

test('a proxied actuator write is recorded with who, where, what, the outcome and its body', () => withAudit(async (a) => {
  const res = await call('POST', `${a.tk.url}/instances/${a.id}/actuator/loggers/ROOT`, { headers: { ...OPERATOR, ...JSON_BODY }, body: '{"configuredLevel":"DEBUG"}' });
  assert.is(res.status, 204);
  // The instance got the body untouched.
  assert.is(a.fake.requests.find((r) => r.method === 'POST')!.body.toString(), '{"configuredLevel":"DEBUG"}');
  const entry = await a.entry((e) => e.action === 'actuator.write', 'the logger change');
  assert.equal({ ...entry, id: 0, timestamp: '', durationMs: 0 }, {
    id: 0, timestamp: '', durationMs: 0,
    actor: { name: 'olga', kind: 'user', via: 'basic' },
    address: '127.0.0.1',
    action: 'actuator.write',
    method: 'POST',
    path: `/instances/${a.id}/actuator/loggers/ROOT`,
    instance: a.id,
    application: 'shop',
    status: 204,
    detail: { configuredLevel: 'DEBUG' },
  });
  assert.ok(entry.id > 0);
  assert.ok(Math.abs(Date.parse(entry.timestamp) - Date.now()) < 60_000, entry.timestamp);
  assert.type(entry.durationMs, 'number');
}));

test('a secret in a proxied body is masked, nested or as an env write; a body over 1 KiB is not kept', () => withAudit(async (a) => {
  const url = `${a.tk.url}/instances/${a.id}/actuator/env`;
  await call('POST', url, { headers: { ...ADMIN, ...JSON_BODY }, body: JSON.stringify({ name: 'spring.datasource.password', value: 'hunter2' }) });
  await call('POST', url, { headers: { ...ADMIN, ...JSON_BODY }, body: JSON.stringify({ settings: { password: 'hunter3', level: 'INFO' } }) });
  await call('POST', url, { headers: { ...ADMIN, ...JSON_BODY }, body: JSON.stringify({ name: 'x', value: 'y'.repeat(2000) }) });
  const writes = await eventually(async () => {
    const found = await a.entries('?action=actuator.write');
    return found.length === 3 ? found : undefined;
  }, 'three writes');
  assert.equal(writes.map((e) => e.detail), [
    { body: 'not kept (2023 bytes, over 1024)' },
    { settings: { password: '******', level: 'INFO' } },
    { name: 'spring.datasource.password', value: '******' },
  ]);
  const all = JSON.stringify(await a.entries());
  assert.not.match(all, 'hunter');
  assert.not.match(all, PASSWORD_IN_ENTRIES);
}));
const PASSWORD_IN_ENTRIES = 'pw-Secret';

test('every write on any route is recorded with the action the access check decided; reads are not', () => withAudit(async (a) => {
  assert.is((await call('GET', `${a.tk.url}/instances`, { headers: ADMIN })).status, 200);
  assert.is((await call('GET', `${a.tk.url}/instances/${a.id}/actuator/health`, { headers: ADMIN })).status, 200);
  assert.is((await call('DELETE', `${a.tk.url}/instances/${a.id}`, { headers: OPERATOR })).status, 204);
  const entry = await a.entry((e) => e.method === 'DELETE', 'the deregistration');
  assert.is(entry.action, 'instances.deregister');
  assert.is(entry.instance, a.id);
  assert.is(entry.application, 'shop');
  assert.is(entry.status, 204);
  assert.is(entry.detail, null);
  // A write to no route at all is recorded too.
  assert.is((await call('POST', `${a.tk.url}/nowhere`, { headers: ADMIN })).status, 404);
  await a.entry((e) => e.path === '/nowhere', 'the write to no route');
  const entries = await a.entries();
  assert.equal(entries.map((e) => `${e.method} ${e.status}`), ['POST 404', 'DELETE 204']);
}));

test('a read of a sensitive endpoint is recorded; the same read of another endpoint is not', () => withAudit(async (a) => {
  assert.is((await call('GET', `${a.tk.url}/instances/${a.id}/actuator/info`, { headers: ADMIN })).status, 200);
  assert.is((await call('GET', `${a.tk.url}/instances/${a.id}/actuator/heapdump`, { headers: ADMIN })).status, 200);
  const entry = await a.entry((e) => e.path?.endsWith('/heapdump') === true, 'the heap dump read');
  assert.equal([entry.action, entry.method, entry.status, entry.actor.name, entry.detail], ['actuator.read', 'GET', 200, 'root', null]);
  assert.equal((await a.entries()).map((e) => e.path), [`/instances/${a.id}/actuator/heapdump`]);
}));

test('a refused request (403) is recorded with the action it asked for, and its body never reaches the instance', () => withAudit(async (a) => {
  const res = await call('POST', `${a.tk.url}/instances/${a.id}/actuator/loggers/ROOT`, { headers: { ...VIEWER, ...JSON_BODY }, body: '{"configuredLevel":"TRACE"}' });
  assert.is(res.status, 403);
  const heap = await call('GET', `${a.tk.url}/instances/${a.id}/actuator/heapdump`, { headers: OPERATOR });
  assert.is(heap.status, 403);
  const refused = await a.entry((e) => e.actor.name === 'olga', 'the refused heap dump');
  assert.equal([refused.action, refused.status, refused.instance], ['actuator.read', 403, a.id]);
  const [, write] = await a.entries();
  assert.equal([write!.actor.name, write!.action, write!.status, write!.detail], ['vera', 'actuator.write', 403, null]);
  assert.is(a.fake.requests.filter((r) => r.method === 'POST').length, 0);
  // GET /audit itself is admin's: a viewer is refused, and that is recorded too.
  assert.is((await call('GET', `${a.tk.url}/audit`, { headers: VIEWER })).status, 403);
  const audit = await a.entry((e) => e.path === '/audit', 'the refused audit read');
  assert.equal([audit.action, audit.actor.name, audit.status], ['audit.read', 'vera', 403]);
}));

test('registrations by the registration role are left out, unless include-registrations', async () => {
  const registration = (fakeHealth: string) => ({ name: 'billing', healthUrl: fakeHealth });
  await withAudit(async (a) => {
    assert.is((await call('POST', `${a.tk.url}/instances`, { headers: CLIENT, json: registration(a.fake.healthUrl) })).status, 201);
    assert.is((await call('POST', `${a.tk.url}/instances`, { headers: ADMIN, json: registration(a.fake.healthUrl) })).status, 201);
    const byAdmin = await a.entry((e) => e.action === 'instances.register', 'the admin registration');
    assert.is(byAdmin.actor.name, 'root');
    assert.equal((await a.entries()).map((e) => e.actor.name), ['root']);
  });
  await withAudit(async (a) => {
    assert.is((await call('POST', `${a.tk.url}/instances`, { headers: CLIENT, json: registration(a.fake.healthUrl) })).status, 201);
    const entry = await a.entry((e) => e.action === 'instances.register', 'the client registration');
    assert.equal([entry.actor.name, entry.status], ['client', 201]);
  }, { audit: { 'include-registrations': true } });
});

test('failed sign-ins are counted per address and user: the first is recorded, the rest of the minute only counted', () => withAudit(async (a) => {
  for (let i = 0; i < 3; i += 1) assert.is((await call('GET', `${a.tk.url}/instances`, { headers: { authorization: basic('root', `wrong-${i}`) } })).status, 401);
  assert.is((await call('GET', `${a.tk.url}/instances`, { headers: { authorization: basic('mallory', 'guess') } })).status, 401);
  assert.is((await call('GET', `${a.tk.url}/instances`, { headers: { authorization: 'Bearer not-a-token' } })).status, 401);
  // No credentials at all is not a failed sign-in.
  assert.is((await call('GET', `${a.tk.url}/instances`)).status, 401);
  await a.entry((e) => e.actor.name === 'bearer token', 'the bearer failure');
  const failures = (await a.entries('?action=auth.sign-in-failed')).map((e) => [e.actor.name, e.actor.via, e.status, e.detail]);
  assert.equal(failures, [['bearer token', 'token', 401, { failures: 1 }], ['mallory', 'basic', 401, { failures: 1 }], ['root', 'basic', 401, { failures: 1 }]]);
  assert.not.match(JSON.stringify(await a.entries()), 'wrong-');
}));

test('a config reload is recorded, by system, with what it applied', () => withAudit(async (a) => {
  const report = await a.tk.reload({ 'log-level': 'warn', 'basic-auth': { users: (await import('./support.js')).USERS }, access: { 'sensitive-endpoints': ['heapdump'] }, audit: {} });
  assert.equal(report.applied, ['log-level']);
  const entry = await a.entry((e) => e.action === 'config.reload', 'the reload');
  assert.equal([entry.actor, entry.address, entry.method, entry.detail], [{ name: 'system', kind: 'system', via: null }, null, null, { applied: ['log-level'], restart: [], failed: [] }]);
}));

test('a write whose entry cannot be written to the audit file still runs; the failure is logged and counted', () => withAudit(async (a) => {
  const res = await call('POST', `${a.tk.url}/instances/${a.id}/actuator/loggers/ROOT`, { headers: { ...ADMIN, ...JSON_BODY }, body: '{"configuredLevel":"WARN"}' });
  assert.is(res.status, 204);
  assert.is(a.fake.requests.filter((r) => r.method === 'POST').length, 1);
  await eventually(async () => /^vigil_audit_failures_total 1$/m.test((await call('GET', `${a.tk.url}/metrics`, { headers: ADMIN })).text), 'the failure counted');
  assert.ok(a.tk.logs().some((line) => line.includes('an audit entry could not be written to the audit file /nonexistent-dir/')), a.tk.logs().join('\n'));
  // Memory still has it.
  assert.is((await a.entries('?action=actuator.write')).length, 1);
}, { audit: { file: '/nonexistent-dir/vigil/audit.log' }, config: { 'log-level': 'warn' } }));

export type { Entry };
test.run();
