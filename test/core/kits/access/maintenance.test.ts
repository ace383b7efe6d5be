import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accessKernel, as, call, errorOf, registerAt } from './support.js';

test('maintenance windows: an operator within its applications only, a viewer reads, an admin anywhere; createdBy names the caller', async () => {
  const tk = await accessKernel({}, ['rest-api', 'notify', 'basic-auth']);
  try {
    const payments = await registerAt(tk, 'payments-api', { origin: 'http://127.0.0.1:9' });
    const orders = await registerAt(tk, 'orders', { origin: 'http://127.0.0.1:10' });
    const post = (user: string, json: Record<string, unknown>) => call('POST', `${tk.url}/maintenance`, { headers: as(user), json: { duration: '1h', reason: 'upgrade', ...json } });

    const mine = await post('alice', { applications: ['payments-*'], instances: [payments] });
    assert.is(mine.status, 201, mine.text);
    assert.is((mine.json as { createdBy: string }).createdBy, 'alice');

    const forbidden = { status: 403, error: 'Forbidden', message: 'you may not manage maintenance windows of these applications', path: '/maintenance' };
    for (const json of [{ applications: ['orders'] }, { applications: ['*'] }, { instances: [orders] }, { instances: ['ffffffffffff'] }]) {
      assert.equal(errorOf(await post('alice', json)), { status: 403, body: forbidden }, JSON.stringify(json));
    }
    const viewer = await post('bob', { applications: ['payments-*'] });
    assert.is(viewer.status, 403);
    assert.match((viewer.json as { message: string }).message, /^action "maintenance\.manage" is not permitted to bob/);
    const list = await call('GET', `${tk.url}/maintenance`, { headers: as('bob') });
    assert.equal([list.status, (list.json as unknown[]).length], [200, 1]);

    const admins = await post('root', { applications: ['orders'] });
    assert.is(admins.status, 201, admins.text);
    const id = (admins.json as { id: string }).id;
    assert.equal(errorOf(await call('DELETE', `${tk.url}/maintenance/${id}`, { headers: as('alice') })), { status: 403, body: { ...forbidden, path: `/maintenance/${id}` } });
    assert.is((await call('DELETE', `${tk.url}/maintenance/${(mine.json as { id: string }).id}`, { headers: as('alice') })).status, 204);
    assert.is((await call('DELETE', `${tk.url}/maintenance/${id}`, { headers: as('root') })).status, 204);
  } finally {
    await tk.stop();
  }
});

test.run();
