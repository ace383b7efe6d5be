import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../../support/http.js';
import { notifyKernel } from './support.js';

const ERROR_KEYS = ['error', 'message', 'path', 'status', 'timestamp'];

test('SBA\'s filter API: ids F-0, F-1, …; ttl in ms from now; 200 with the filter; DELETE 200 empty or 404', async () => {
  const tk = await notifyKernel([], { 'context-path': '/admin' });
  try {
    const before = Date.now();
    const byId = await call('POST', `${tk.url}/notifications/filters?instanceId=abc123&ttl=60000`);
    assert.is(byId.status, 200);
    assert.match(byId.headers.get('content-type') ?? '', /^application\/json/);
    const filter = byId.json as { id: string; instanceId: string; expiry: string; expired: boolean };
    assert.equal(Object.keys(filter), ['id', 'instanceId', 'expiry', 'expired']);
    assert.is(filter.id, 'F-0');
    assert.is(filter.instanceId, 'abc123');
    assert.is(filter.expired, false);
    const expiry = Date.parse(filter.expiry);
    assert.ok(expiry >= before + 60_000 && expiry <= Date.now() + 60_000, filter.expiry);

    // instanceId wins when both are given; without ttl (or a negative one) it never expires.
    const both = await call('POST', `${tk.url}/notifications/filters?instanceId=def&applicationName=shop`);
    assert.equal(both.json, { id: 'F-1', instanceId: 'def', expiry: null, expired: false });
    const byName = await call('POST', `${tk.url}/notifications/filters?applicationName=shop&ttl=-1`);
    assert.equal(byName.json, { id: 'F-2', applicationName: 'shop', expiry: null, expired: false });

    const list = await call('GET', `${tk.url}/notifications/filters`);
    assert.is(list.status, 200);
    assert.equal(list.json, [filter, both.json, byName.json]);

    const deleted = await call('DELETE', `${tk.url}/notifications/filters/F-1`);
    assert.is(deleted.status, 200);
    assert.is(deleted.text, '');
    assert.is(deleted.headers.get('content-length'), '0');
    const again = await call('DELETE', `${tk.url}/notifications/filters/F-1`);
    assert.is(again.status, 404);
    assert.equal(Object.keys(again.json as object).sort(), ERROR_KEYS);
    assert.equal({ ...(again.json as object), timestamp: 0 }, {
      timestamp: 0, status: 404, error: 'Not Found', message: 'notification filter F-1 not found', path: '/admin/notifications/filters/F-1',
    });
    assert.equal(((await call('GET', `${tk.url}/notifications/filters`)).json as { id: string }[]).map((f) => f.id), ['F-0', 'F-2']);
  } finally {
    await tk.stop();
  }
});

test('a filter request without a target, or with a bad ttl, is a 400 JSON error and creates nothing', async () => {
  const tk = await notifyKernel([]);
  try {
    for (const [query, message] of [
      ['', "Either 'instanceId' or 'applicationName' must be set"],
      ['?instanceId=&applicationName=%20', "Either 'instanceId' or 'applicationName' must be set"],
      ['?instanceId=a&ttl=soon', "'ttl' must be a whole number of milliseconds"],
      ['?instanceId=a&instanceId=b', "query parameter 'instanceId' must be given once"],
      [`?applicationName=${'x'.repeat(1025)}`, 'the instanceId or applicationName of a filter has at most 1024 characters'],
    ] as const) {
      const reply = await call('POST', `${tk.url}/notifications/filters${query}`);
      assert.is(reply.status, 400, query);
      assert.equal({ ...(reply.json as object), timestamp: 0 }, { timestamp: 0, status: 400, error: 'Bad Request', message, path: '/notifications/filters' }, query);
    }
    assert.equal((await call('GET', `${tk.url}/notifications/filters`)).json, []);
  } finally {
    await tk.stop();
  }
});

test('filters-api: false leaves the filter routes out', async () => {
  const tk = await notifyKernel([], { notify: { 'filters-api': false } });
  try {
    assert.is((await call('GET', `${tk.url}/notifications/filters`)).status, 404);
    assert.is((await call('GET', `${tk.url}/notifications`)).status, 200);
  } finally {
    await tk.stop();
  }
});

test.run();
