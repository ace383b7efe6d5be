import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { openSse } from '../../../plugins/sse/client.js';
import { ELEVATED, accessKernel, as, bearer, call, registerAt } from './support.js';

const names = (list: unknown) => (list as { registration?: { name: string }; name?: string }[]).map((item) => item.registration?.name ?? item.name).sort();

test('GET /instances and /applications show only the caller\'s applications', async () => {
  const tk = await accessKernel();
  try {
    await registerAt(tk, 'payments-api', { origin: 'http://127.0.0.1:1' });
    await registerAt(tk, 'payments-batch', { origin: 'http://127.0.0.1:2' });
    await registerAt(tk, 'orders', { origin: 'http://127.0.0.1:3' });
    assert.equal(names((await call('GET', `${tk.url}/instances`, { headers: as('bob') })).json), ['payments-api', 'payments-batch']);
    assert.equal(names((await call('GET', `${tk.url}/applications`, { headers: as('bob') })).json), ['payments-api', 'payments-batch']);
    assert.equal(names((await call('GET', `${tk.url}/instances?name=orders`, { headers: as('bob') })).json), []);
    assert.equal(names((await call('GET', `${tk.url}/instances`, { headers: bearer('orders-view-token') })).json), ['orders']);
    assert.equal(names((await call('GET', `${tk.url}/instances`, { headers: as('root') })).json), ['orders', 'payments-api', 'payments-batch']);
    // An operator token without applications is granted all of them.
    assert.equal(names((await call('GET', `${tk.url}/applications`, { headers: bearer('ci-token') })).json), ['orders', 'payments-api', 'payments-batch']);
  } finally {
    await tk.stop();
  }
});

test('events: the list and every stream form show the events recorded while the instance was the caller\'s, never after it moved out, live or replayed', async () => {
  const tk = await accessKernel();
  const open: { close(): void }[] = [];
  try {
    const other = await registerAt(tk, 'orders', { origin: 'http://127.0.0.1:5' });
    const before = tk.kernel.registry.lastSeq;
    const live = await openSse(`${tk.url}/instances/events`, as('bob'));
    const apps = await openSse(`${tk.url}/applications`, as('bob'));
    open.push(live, apps);
    const id = await registerAt(tk, 'payments-api', { origin: 'http://127.0.0.1:4' });
    // Opened after its registration, resuming from before it: REGISTERED replayed, then live.
    const watcher = await openSse(`${tk.url}/instances/${id}/events`, { ...as('bob'), 'last-event-id': String(before) });
    const snapshots = await openSse(`${tk.url}/instances/${id}`, { ...as('bob'), 'last-event-id': String(before) });
    await watcher.waitFor((message) => message.json.type === 'REGISTERED', 'the replayed registration');
    open.push(watcher, snapshots);
    // The instance moves to an application bob may not see, then leaves.
    await registerAt(tk, 'orders-api', { origin: 'http://127.0.0.1:4' });
    await tk.kernel.registry.deregister(id);
    await tk.kernel.registry.deregister(other);
    const mark = await registerAt(tk, 'payments-mark', { origin: 'http://127.0.0.1:6' });
    const all = tk.kernel.registry.events().filter((event) => event.seq > before);
    assert.equal(all.map((event) => `${event.instance === id ? 'x' : event.instance === mark ? 'mark' : 'other'}:${event.type}`),
      ['x:REGISTERED', 'x:REGISTRATION_UPDATED', 'x:DEREGISTERED', 'other:DEREGISTERED', 'mark:REGISTERED']);
    const seen = (list: readonly { instance: string; type: string }[]) => list.map((event) => `${event.instance === id ? 'x' : event.instance === mark ? 'mark' : 'other'}:${event.type}`);
    const expected = ['x:REGISTERED', 'mark:REGISTERED'];

    // The JSON list.
    const list = (await call('GET', `${tk.url}/instances/events`, { headers: as('bob') })).json as { instance: string; type: string }[];
    assert.equal(seen(list), expected);
    // The live stream: everything up to the marker, and nothing of what moved out.
    await live.waitFor((message) => message.json.instance === mark, 'the marker');
    assert.equal(seen(live.messages.map((message) => message.json as { instance: string; type: string })), expected);
    // A replay from before it all.
    const replay = await openSse(`${tk.url}/instances/events`, { ...as('bob'), 'last-event-id': String(before) });
    open.push(replay);
    await replay.waitFor((message) => message.json.instance === mark, 'the replayed marker');
    assert.equal(seen(replay.messages.map((message) => message.json as { instance: string; type: string })), expected);
    // root sees all five, live and replayed.
    const rootReplay = await openSse(`${tk.url}/instances/events`, { ...as('root'), 'last-event-id': String(before) });
    open.push(rootReplay);
    await rootReplay.until(() => rootReplay.messages.length === 5, 'five events');
    // The per-instance stream opened while it was bob's: its REGISTERED only.
    await live.waitFor((message) => message.json.instance === mark, 'the marker again');
    assert.equal(watcher.messages.map((message) => message.json.type), ['REGISTERED']);
    assert.equal(snapshots.messages.map((message) => message.json.registration.name), ['payments-api']);
    // Now it is out of scope: the per-instance stream is 404, with or without a replay.
    for (const headers of [as('bob'), { ...as('bob'), 'last-event-id': String(before) }]) {
      const reply = await call('GET', `${tk.url}/instances/${id}/events`, { headers });
      assert.is(reply.status, 404);
    }
    // Application snapshots: payments-api (joined, then left) and payments-mark, never orders or orders-api.
    await apps.waitFor((message) => message.json.name === 'payments-mark', 'the marker application');
    assert.equal([...new Set(apps.messages.map((message) => message.json.name as string))], ['payments-api', 'payments-mark']);
    const appReplay = await openSse(`${tk.url}/applications`, { ...as('bob'), 'last-event-id': String(before) });
    open.push(appReplay);
    await appReplay.waitFor((message) => message.json.name === 'payments-mark', 'the replayed marker application');
    assert.equal(appReplay.messages.map((message) => message.json.name as string).sort(), ['payments-api', 'payments-mark']);
  } finally {
    for (const stream of open) stream.close();
    await tk.stop();
  }
});

test('GET /access/me: who the caller is and its grants', async () => {
  const tk = await accessKernel();
  try {
    assert.equal((await call('GET', `${tk.url}/access/me`, { headers: as('alice') })).json,
      { name: 'alice', kind: 'user', via: 'basic', groups: [], grants: [{ role: 'operator', applications: ['payments-*'] }], ...ELEVATED });
    assert.equal((await call('GET', `${tk.url}/access/me`, { headers: bearer('ci-token') })).json,
      { name: 'ci', kind: 'token', via: 'token', groups: [], grants: [{ role: 'operator', applications: ['*'] }], ...ELEVATED });
    assert.equal((await call('GET', `${tk.url}/access/me`, { headers: as('nobody') })).json,
      { name: 'nobody', kind: 'user', via: 'basic', groups: [], grants: [], ...ELEVATED });
    assert.is((await call('GET', `${tk.url}/access/me`)).status, 401);
  } finally {
    await tk.stop();
  }
  // Without an access section, a user without a role is admin over everything, as before.
  const plain = await accessKernel({ access: undefined });
  try {
    assert.equal((await call('GET', `${plain.url}/access/me`, { headers: as('bob') })).json,
      { name: 'bob', kind: 'user', via: 'basic', groups: [], grants: [{ role: 'admin', applications: ['*'] }], sensitiveEndpoints: [], adminEndpoints: [] });
    assert.is((await call('DELETE', `${plain.url}/applications/nothing`, { headers: as('bob') })).status, 404);
  } finally {
    await plain.stop();
  }
});

test.run();
