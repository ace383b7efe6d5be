import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DeliveryRecord, NotificationsStatus } from '../../../../core/domain/index.js';
import { eventually } from '../../../support/http.js';
import { Receiver } from '../../../plugins/notify/receiver.js';
import { registerInstance, setStatus } from '../../../plugins/notify/support.js';
import { accessKernel, as, bearer, call } from './support.js';

/** One try per notification: a 500 is a failure at once, so each step below ends in one record. */
const NOTIFY = { delivery: { 'max-attempts': 1 } };

const channelOf = async (url: string, headers: Record<string, string>) => {
  const reply = await call('GET', `${url}/notifications`, { headers });
  assert.is(reply.status, 200, reply.text);
  return (reply.json as NotificationsStatus).channels.find((channel) => channel.name === 'notify-webhook')!;
};
/** A record as `application outcome`, from its summary (`<application> … is DOWN`). */
const about = (record: DeliveryRecord | null) => (record === null ? null : `${/^\S+/.exec(record.summary)![0]} ${record.outcome}`);

test('GET /notifications: recent deliveries, lastDelivery and lastFailure only about the caller\'s applications; the counters stay global', async () => {
  const receiver = await Receiver.start();
  const tk = await accessKernel({ notify: NOTIFY, 'notify-webhook': { url: `${receiver.url}/hook` } }, ['rest-api', 'notify', 'notify-webhook', 'basic-auth']);
  try {
    const payments = await registerInstance(tk, 'payments-api');
    const orders = await registerInstance(tk, 'orders');
    for (const id of [payments, orders]) await setStatus(tk, id, 'UP');
    const recorded = async (count: number) => eventually(async () => (await channelOf(tk.url, as('root'))).recent.length === count, `${count} deliveries recorded`);

    // payments-api DOWN fails, orders DOWN is delivered.
    receiver.answer({ status: 500 });
    await setStatus(tk, payments, 'DOWN');
    await recorded(1);
    await setStatus(tk, orders, 'DOWN');
    await recorded(2);
    const root = await channelOf(tk.url, as('root'));
    assert.equal(root.recent.map(about), ['orders delivered', 'payments-api failed']);
    assert.equal([about(root.lastDelivery), about(root.lastFailure)], ['orders delivered', 'payments-api failed']);
    // bob views payments-*: the failure is his, the delivery is not.
    const bob = await channelOf(tk.url, as('bob'));
    assert.equal(bob.recent.map(about), ['payments-api failed']);
    assert.equal([about(bob.lastDelivery), about(bob.lastFailure)], [null, 'payments-api failed']);
    // The token viewing orders sees the other half.
    const ordersView = await channelOf(tk.url, bearer('orders-view-token'));
    assert.equal(ordersView.recent.map(about), ['orders delivered']);
    assert.equal([about(ordersView.lastDelivery), about(ordersView.lastFailure)], ['orders delivered', null]);
    assert.equal([bob.delivered, bob.failed], [root.delivered, root.failed]);
    assert.equal([root.delivered, root.failed], [1, 1]);

    // Then payments-api UP is delivered and orders UP fails: bob's last delivery is his, the last failure not.
    await setStatus(tk, payments, 'UP');
    await recorded(3);
    receiver.answer({ status: 500 });
    await setStatus(tk, orders, 'UP');
    await recorded(4);
    const later = await channelOf(tk.url, as('bob'));
    assert.equal(later.recent.map(about), ['payments-api delivered', 'payments-api failed']);
    assert.equal([about(later.lastDelivery), about(later.lastFailure)], ['payments-api delivered', null]);
    // nobody (no grant) may not read it at all.
    assert.is((await call('GET', `${tk.url}/notifications`, { headers: as('nobody') })).status, 403);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
