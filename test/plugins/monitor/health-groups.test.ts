import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { groupsOfBody } from '../../../plugins/monitor/health-groups.js';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { call, eventually } from '../../support/http.js';
import { monitorKernel, register, registerFake, statusEvent } from './support.js';

test('groupsOfBody: the distinct strings of the groups array; undefined without one', () => {
  assert.equal(groupsOfBody({ status: 'UP', groups: ['liveness', 'readiness', 'liveness', 7, null] }), ['liveness', 'readiness']);
  assert.equal(groupsOfBody({ status: 'UP', groups: [] }), []);
  assert.is(groupsOfBody({ status: 'UP' }), undefined);
  assert.is(groupsOfBody({ status: 'UP', groups: 'liveness' }), undefined);
  assert.is(groupsOfBody(undefined), undefined);
});

// SBA's StatusUpdaterTest (reference §16, 15j) over HTTP, plus what the cache keeps and forgets.
test('GET /instances/{id}/health-groups: the groups of the last health body that listed any; [] after deregistration; 404 unknown', async () => {
  const fake = await FakeActuator.start({ health: { status: 'UP', groups: ['liveness', 'readiness'] } });
  const plain = await FakeActuator.start({ health: { status: 'UP' } });
  const tk = await monitorKernel();
  try {
    const id = await registerFake(tk, fake, 'grouped');
    const none = await registerFake(tk, plain, 'ungrouped');
    await Promise.all([statusEvent(tk, id, 'UP'), statusEvent(tk, none, 'UP')]);
    const groups = async (of: string) => (await call('GET', `${tk.url}/instances/${of}/health-groups`)).json;
    await eventually(async () => JSON.stringify(await groups(id)) === '["liveness","readiness"]', 'the groups of the first body');
    const reply = await call('GET', `${tk.url}/instances/${id}/health-groups`);
    assert.is(reply.status, 200);
    assert.match(reply.headers.get('content-type') ?? '', 'application/json');
    assert.equal(await groups(none), []);

    // A body without groups leaves them; a body with others replaces them.
    fake.setHealth(200, { status: 'UP' }, ACTUATOR_V3);
    const before = fake.requestsTo('/health').length;
    await eventually(() => fake.requestsTo('/health').length > before + 1, 'two more health checks');
    assert.equal(await groups(id), ['liveness', 'readiness']);
    fake.setHealth(200, { status: 'UP', groups: ['custom'] }, ACTUATOR_V3);
    await eventually(async () => JSON.stringify(await groups(id)) === '["custom"]', 'the new groups');

    await call('DELETE', `${tk.url}/instances/${id}`);
    const gone = await call('GET', `${tk.url}/instances/${id}/health-groups`);
    assert.equal([gone.status, gone.json], [200, []], 'deregistered but still held: [] as SBA');

    const unknown = await call('GET', `${tk.url}/instances/000000000000/health-groups`);
    assert.is(unknown.status, 404);
    assert.equal((unknown.json as { status: number; path: string }).path, '/instances/000000000000/health-groups');
  } finally {
    await tk.stop();
    await Promise.all([fake.close(), plain.close()]);
  }
});

test('health-groups without a plugin that reads health: [] for a known id, 404 for an unknown one', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'] });
  try {
    const id = await register(tk, { name: 'x', healthUrl: 'http://127.0.0.1:1/actuator/health' });
    assert.equal((await call('GET', `${tk.url}/instances/${id}/health-groups`)).json, []);
    assert.is((await call('GET', `${tk.url}/instances/nope/health-groups`)).status, 404);
  } finally {
    await tk.stop();
  }
});

test.run();
