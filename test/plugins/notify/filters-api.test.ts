import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, eventually } from '../../support/http.js';
import { Receiver } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

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

test('notify.max-filters (default 1,000): one more is a 429 JSON error naming the limit and creates nothing; with a thousand filters each change is matched right', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-webhook'], { 'notify-webhook': { url: `${receiver.url}/hook` } });
  try {
    const [shop, billing, orders, cart] = [await registerInstance(tk, 'shop'), await registerInstance(tk, 'billing'), await registerInstance(tk, 'orders'), await registerInstance(tk, 'cart')];
    const post = async (query: string) => {
      const reply = await call('POST', `${tk.url}/notifications/filters?${query}`);
      assert.is(reply.status, 200, reply.text);
      return reply.json as { id: string };
    };
    // A filter of cart that expires at once: it neither silences nor counts.
    const expiring = await post(`instanceId=${cart}&ttl=1`);
    await eventually(async () => !((await call('GET', `${tk.url}/notifications/filters`)).json as { id: string }[]).some((f) => f.id === expiring.id), 'the ttl to pass');
    // 1,000 live filters: near misses of orders and cart (other ids, other names, other cases) and the two that silence.
    const queries: string[] = [];
    for (let n = 0; n < 498; n++) queries.push(`instanceId=${n.toString(16).padStart(12, '0')}`, `applicationName=app-${n}`);
    queries.push('applicationName=Orders', `instanceId=${orders.slice(0, 11)}`, `instanceId=${shop}`, 'applicationName=billing');
    for (const query of queries) await post(query);
    assert.is(((await call('GET', `${tk.url}/notifications/filters`)).json as unknown[]).length, 1000);

    const refused = await call('POST', `${tk.url}/notifications/filters?applicationName=one-more`);
    assert.is(refused.status, 429);
    assert.equal({ ...(refused.json as object), timestamp: 0 }, {
      timestamp: 0, status: 429, error: 'Too Many Requests', path: '/notifications/filters',
      message: 'there are already 1000 notification filters, the most notify.max-filters allows: delete one (or raise the limit)',
    });
    const list = (await call('GET', `${tk.url}/notifications/filters`)).json as { id: string; applicationName?: string }[];
    assert.is(list.length, 1000);
    assert.ok(!list.some((f) => f.applicationName === 'one-more'));

    for (const id of [shop, billing, orders, cart]) await setStatus(tk, id, 'DOWN');
    await eventually(async () => (await notificationsStatus(tk)).pipeline.filtered === 2, 'shop and billing to be filtered');
    const got = await receiver.received(2);
    assert.equal(got.map((r) => (r.json as { instance: { id: string } }).instance.id).sort(), [orders, cart].sort());

    // Deleting one makes room again.
    assert.is((await call('DELETE', `${tk.url}/notifications/filters/${list[0]!.id}`)).status, 200);
    assert.is((await call('POST', `${tk.url}/notifications/filters?applicationName=one-more`)).status, 200);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test('notify.max-filters: a smaller cap is kept, and the error names it', async () => {
  const tk = await notifyKernel([], { notify: { 'max-filters': 2 } });
  try {
    assert.is((await call('POST', `${tk.url}/notifications/filters?instanceId=a`)).status, 200);
    assert.is((await call('POST', `${tk.url}/notifications/filters?instanceId=b`)).status, 200);
    const refused = await call('POST', `${tk.url}/notifications/filters?instanceId=c`);
    assert.is(refused.status, 429);
    assert.is((refused.json as { message: string }).message, 'there are already 2 notification filters, the most notify.max-filters allows: delete one (or raise the limit)');
    assert.equal(((await call('GET', `${tk.url}/notifications/filters`)).json as { instanceId: string }[]).map((f) => f.instanceId), ['a', 'b']);
  } finally {
    await tk.stop();
  }
});

test.run();
