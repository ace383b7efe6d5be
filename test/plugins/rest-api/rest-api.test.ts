import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { changeStatusCommand } from '../../../core/plugin-api.js';
import { statusInfo } from '../../../core/domain/index.js';
import { instanceIdOf } from '../../../core/store/instance-id.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

const healthUrl = (n: number) => `http://127.0.0.1:1/app-${n}/actuator/health`;
const registration = (name: string, n: number, extra: Record<string, unknown> = {}) => ({
  name, healthUrl: healthUrl(n), managementUrl: `http://127.0.0.1:1/app-${n}/actuator`, serviceUrl: `http://127.0.0.1:1/app-${n}/`, ...extra,
});

async function withKernel(run: (tk: TestKernel) => Promise<void>, config: Record<string, unknown> = {}): Promise<void> {
  const tk = await startTestKernel({ plugins: ['rest-api'], config });
  try {
    await run(tk);
  } finally {
    await tk.stop();
  }
}

test('POST /instances: 201, Location, {id}; the instance has the full shape', () => withKernel(async (tk) => {
  const res = await call('POST', `${tk.url}/instances`, { json: registration('shop', 1, { metadata: { 'tags.env': 'test', 'user.password': 'hunter2', version: 7 } }) });
  const id = instanceIdOf(healthUrl(1));
  assert.is(res.status, 201);
  assert.equal(res.json, { id });
  assert.is(res.headers.get('location'), `/instances/${id}`);
  assert.match(res.headers.get('content-type') ?? '', 'application/json');
  const instance = (await call('GET', `${tk.url}/instances/${id}`)).json as Record<string, unknown>;
  assert.equal(instance, {
    id,
    version: 0,
    registration: {
      name: 'shop', managementUrl: 'http://127.0.0.1:1/app-1/actuator', healthUrl: healthUrl(1), serviceUrl: 'http://127.0.0.1:1/app-1/',
      source: 'http-api', metadata: { 'tags.env': 'test', 'user.password': '******', version: '7' },
    },
    registered: true,
    statusInfo: { status: 'UNKNOWN', details: {} },
    statusTimestamp: instance.statusTimestamp,
    info: {},
    endpoints: [{ id: 'health', url: healthUrl(1) }],
    buildVersion: '7',
    tags: { env: 'test' },
  });
  assert.ok(!tk.logs().join('\n').includes('hunter2'), 'the password never reaches the log');
}));

test('re-registration: same id, nothing recorded when equal, REGISTRATION_UPDATED when changed', () => withKernel(async (tk) => {
  const first = await call('POST', `${tk.url}/instances`, { json: registration('shop', 2) });
  for (let i = 0; i < 3; i += 1) {
    const again = await call('POST', `${tk.url}/instances`, { json: registration('shop', 2) });
    assert.equal([again.status, again.json], [201, first.json]);
  }
  const id = (first.json as { id: string }).id;
  await call('POST', `${tk.url}/instances`, { json: registration('renamed', 2) });
  const events = (await call('GET', `${tk.url}/instances/events`)).json as { type: string; version: number; registration?: { name: string } }[];
  assert.equal(events.map((e) => `${e.type}@${e.version}`), ['REGISTERED@0', 'REGISTRATION_UPDATED@1']);
  assert.is(events[1]!.registration!.name, 'renamed');
  assert.is(((await call('GET', `${tk.url}/instances/${id}`)).json as { registration: { name: string } }).registration.name, 'renamed');
}));

test('invalid registrations: 400 naming the field, nothing stored', () => withKernel(async (tk) => {
  const cases: [unknown, string][] = [
    [{ healthUrl: healthUrl(3) }, "'name' must not be empty"],
    [{ name: 'x' }, "'healthUrl' must not be empty"],
    [{ name: 'x', healthUrl: 'not a url' }, "'healthUrl' is not valid"],
    [{ name: 'x', healthUrl: healthUrl(3), managementUrl: 'http//x' }, "'managementUrl' is not valid"],
    [[{ name: 'x', healthUrl: healthUrl(3) }], 'must be a JSON object'],
  ];
  for (const [body, message] of cases) {
    const res = await call('POST', `${tk.url}/instances`, { json: body });
    assert.is(res.status, 400, JSON.stringify(body));
    const error = res.json as { message: string; path: string; error: string };
    assert.ok(error.message.includes(message), `${error.message} should include ${message}`);
    assert.equal([error.error, error.path], ['Bad Request', '/instances']);
  }
  const wrongType = await call('POST', `${tk.url}/instances`, { body: JSON.stringify(registration('x', 3)), headers: { 'content-type': 'text/plain' } });
  assert.is(wrongType.status, 415);
  assert.equal((await call('GET', `${tk.url}/instances`)).json, []);
  assert.equal((await call('GET', `${tk.url}/instances/events`)).json, []);
}));

test('GET /instances, ?name=, repeated name is 400', () => withKernel(async (tk) => {
  const a = ((await call('POST', `${tk.url}/instances`, { json: registration('alpha', 4) })).json as { id: string }).id;
  await call('POST', `${tk.url}/instances`, { json: registration('beta', 5) });
  assert.equal(((await call('GET', `${tk.url}/instances`)).json as unknown[]).length, 2);
  assert.equal(((await call('GET', `${tk.url}/instances?name=alpha`)).json as { id: string }[]).map((i) => i.id), [a]);
  assert.equal((await call('GET', `${tk.url}/instances?name=nobody`)).json, []);
  const twice = await call('GET', `${tk.url}/instances?name=a&name=b`);
  assert.equal([twice.status, (twice.json as { message: string }).message], [400, "query parameter 'name' must be given once"]);
}));

test('DELETE /instances/{id}: 204, then 404 everywhere, DEREGISTERED last; unknown id 404', () => withKernel(async (tk) => {
  const id = ((await call('POST', `${tk.url}/instances`, { json: registration('gone', 6) })).json as { id: string }).id;
  const deleted = await call('DELETE', `${tk.url}/instances/${id}`);
  assert.equal([deleted.status, deleted.text], [204, '']);
  const after = await call('GET', `${tk.url}/instances/${id}`);
  assert.equal([after.status, (after.json as { message: string }).message], [404, `instance ${id} not found`]);
  assert.equal((await call('GET', `${tk.url}/instances`)).json, []);
  assert.is((await call('DELETE', `${tk.url}/instances/${id}`)).status, 204, 'a held id deletes again, as SBA');
  const events = (await call('GET', `${tk.url}/instances/events`)).json as { type: string }[];
  assert.equal(events.map((e) => e.type), ['REGISTERED', 'DEREGISTERED']);
  const unknown = await call('DELETE', `${tk.url}/instances/000000000000`);
  assert.equal([unknown.status, (unknown.json as { status: number }).status], [404, 404]);
  assert.is((await call('GET', `${tk.url}/instances/000000000000`)).status, 404);
}));

test('applications: grouping, aggregated status, GET by name, DELETE, refresh', () => withKernel(async (tk) => {
  const up = ((await call('POST', `${tk.url}/instances`, { json: registration('shop', 7, { metadata: { version: '1.0' } }) })).json as { id: string }).id;
  const down = ((await call('POST', `${tk.url}/instances`, { json: registration('shop', 8, { metadata: { version: '1.1' } }) })).json as { id: string }).id;
  await call('POST', `${tk.url}/instances`, { json: registration('other', 9) });
  await tk.kernel.registry.apply(up, changeStatusCommand(statusInfo('UP')));
  await tk.kernel.registry.apply(down, changeStatusCommand(statusInfo('DOWN')));

  const apps = (await call('GET', `${tk.url}/applications`)).json as { name: string; status: string; buildVersion: string; instances: { id: string }[] }[];
  assert.equal(apps.map((a) => a.name).sort(), ['other', 'shop']);
  const shop = apps.find((a) => a.name === 'shop')!;
  assert.equal([shop.status, shop.buildVersion, shop.instances.map((i) => i.id).sort()], ['RESTRICTED', '1.0 ... 1.1', [up, down].sort()]);

  const one = await call('GET', `${tk.url}/applications/shop`);
  assert.equal([one.status, (one.json as { name: string }).name], [200, 'shop']);
  assert.is((await call('GET', `${tk.url}/applications/nobody`)).status, 404);

  let refreshes = 0;
  tk.kernel.bus.on('instances.refresh-requested', () => {
    refreshes += 1;
  });
  const refresh = await call('POST', `${tk.url}/applications`);
  assert.equal([refresh.status, refresh.text, refreshes], [200, '', 1]);

  const deleted = await call('DELETE', `${tk.url}/applications/shop`);
  assert.is(deleted.status, 204);
  assert.equal((await call('GET', `${tk.url}/instances?name=shop`)).json, []);
  assert.is((await call('GET', `${tk.url}/applications/shop`)).status, 404);
  assert.is((await call('DELETE', `${tk.url}/applications/shop`)).status, 404);
  const types = ((await call('GET', `${tk.url}/instances/events`)).json as { instance: string; type: string }[])
    .filter((e) => e.instance === up || e.instance === down).map((e) => e.type);
  assert.equal(types.filter((t) => t === 'DEREGISTERED').length, 2);
}));

test('the event list holds per-instance versions from 0 and is bounded by max-events-per-instance', () => withKernel(async (tk) => {
  const id = ((await call('POST', `${tk.url}/instances`, { json: registration('busy', 10) })).json as { id: string }).id;
  for (let i = 0; i < 30; i += 1) {
    await tk.kernel.registry.apply(id, changeStatusCommand(statusInfo(i % 2 ? 'UP' : 'DOWN')));
  }
  const events = (await call('GET', `${tk.url}/instances/events`)).json as { version: number; type: string; timestamp: string }[];
  assert.is(events.length, 10);
  assert.is(events[0]!.type, 'REGISTERED');
  assert.is(events.at(-1)!.version, 30);
  assert.ok(events.every((e) => !Number.isNaN(Date.parse(e.timestamp))));
}, { 'event-store': { 'max-events-per-instance': 10 } }));

test('event-store.max-deregistered-instances: beyond it the oldest deregistered histories are gone from every view; registered ones stay', () => withKernel(async (tk) => {
  const ids: string[] = [];
  for (let n = 1; n <= 6; n += 1) ids.push(((await call('POST', `${tk.url}/instances`, { json: registration('churn', 20 + n) })).json as { id: string }).id);
  for (const id of ids.slice(0, 5)) assert.is((await call('DELETE', `${tk.url}/instances/${id}`)).status, 204);
  const events = (await call('GET', `${tk.url}/instances/events`)).json as { instance: string; type: string }[];
  assert.equal(events.map((e) => `${e.type} ${ids.indexOf(e.instance) + 1}`), [
    'REGISTERED 3', 'REGISTERED 4', 'REGISTERED 5', 'REGISTERED 6', 'DEREGISTERED 3', 'DEREGISTERED 4', 'DEREGISTERED 5',
  ]);
  const statuses = async (method: string, path = '', of = ids) => Promise.all(of.map(async (id) => (await call(method, `${tk.url}/instances/${id}${path}`)).status));
  // GET /instances/{id} is 404 for every deregistered instance (as SBA); what is still held shows in the other two.
  assert.equal(await statuses('GET'), [404, 404, 404, 404, 404, 200]);
  assert.equal(await statuses('GET', '/health-groups'), [404, 404, 200, 200, 200, 200]);
  assert.equal(await statuses('DELETE', '', ids.slice(0, 5)), [404, 404, 204, 204, 204], 'a dropped id is unknown; a held one answers 204 again');
  assert.equal(((await call('GET', `${tk.url}/instances`)).json as { id: string }[]).map((i) => i.id), [ids[5]]);
}, { 'event-store': { 'max-deregistered-instances': 3 } }));

test('context path: routes and Location carry it', () => withKernel(async (tk) => {
  assert.match(tk.url, /\/admin$/);
  const res = await call('POST', `${tk.url}/instances`, { json: registration('ctx', 11) });
  assert.is(res.headers.get('location'), `/admin/instances/${(res.json as { id: string }).id}`);
  assert.is((await call('GET', tk.url.replace(/\/admin$/, '/instances'))).status, 404);
}, { 'context-path': '/admin' }));

test.run();
