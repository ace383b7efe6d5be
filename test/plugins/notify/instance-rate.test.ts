import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceNotification } from '../../../core/kits/notify-channel/index.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { Completion } from '../../../plugins/notify/completion.js';
import { InstanceRateLimit } from '../../../plugins/notify/instance-rate.js';
import type { Entry } from '../../../plugins/notify/batcher.js';
import { eventually } from '../../support/http.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

type Body = { from: string; to: string; coalesced: number; instance: { id: string } };
const change = (r: Received) => `${(r.json as Body).from}→${(r.json as Body).to}`;
const onPath = (path: string) => (r: Received) => r.url.startsWith(path);

let receiver: Receiver;
let tk: TestKernel | undefined;

test.before.each(async () => {
  receiver = await Receiver.start();
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await receiver.close();
});

test('statuses Vigil does not know are one class: a new made-up status on every check is notified once, and the way out of them once', async () => {
  // The rate limit off: the class alone must keep the channel quiet.
  tk = await notifyKernel(['notify-webhook'], { notify: { 'per-instance-rate': 0 }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  for (let n = 1; n <= 20; n++) await setStatus(tk, id, `WARMING-${n}`);
  await setStatus(tk, id, 'DOWN');
  // One lane per instance: once the DOWN is in, everything before it was sent or dropped.
  await receiver.received(1, (r) => (r.json as Body).to === 'DOWN');
  assert.equal(receiver.requests.map(change), ['UP→WARMING-1', 'WARMING-20→DOWN']);
});

test('per-instance-rate 3/1s: the first three changes go out, the rest are folded into one sent when the window has room, the latest state with a count', async () => {
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], {
    notify: { 'per-instance-rate': '3/1s' },
    'notify-webhook': { url: `${receiver.url}/hook` },
    'notify-slack': { 'webhook-url': `${receiver.url}/slack`, 'rate-limit': 0 },
  });
  const id = await registerInstance(tk, 'orders');
  const other = await registerInstance(tk, 'billing');
  await setStatus(tk, id, 'UP');
  // Ten changes at once, ending UP: three are sent, seven kept back.
  for (let n = 1; n <= 10; n++) await setStatus(tk, id, n % 2 === 1 ? 'DOWN' : 'UP');
  // Another instance is not held back by this one's rate.
  await setStatus(tk, other, 'DOWN');
  await receiver.received(1, (r) => onPath('/hook')(r) && (r.json as Body).instance.id === other);
  const hooks = await receiver.received(4, (r) => onPath('/hook')(r) && (r.json as Body).instance.id === id);
  assert.equal(hooks.map(change), ['UP→DOWN', 'DOWN→UP', 'UP→DOWN', 'DOWN→UP']);
  assert.equal(hooks.map((r) => (r.json as Body).coalesced), [0, 0, 0, 6]);
  const slack = await receiver.received(4, (r) => onPath('/slack')(r) && (r.json as { text: string }).text.startsWith('*orders*'));
  assert.is((slack[3]!.json as { text: string }).text, `*orders* (${id}) is *UP* (and 6 earlier changes)`);
  const status = await notificationsStatus(tk);
  assert.is(status.pipeline.rateLimited, 7);
  assert.equal(status.channels.map((c) => c.delivered), [5, 5]);
});

test('per-instance-rate defaults to 6 a minute: the 7th and 8th changes of a flapping instance are kept back, not sent', async () => {
  tk = await notifyKernel(['notify-webhook', 'metrics'], { 'notify-webhook': { url: `${receiver.url}/hook` } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  for (let n = 1; n <= 8; n++) await setStatus(tk, id, n % 2 === 1 ? 'DOWN' : 'UP');
  await eventually(async () => (await notificationsStatus(tk!)).pipeline.rateLimited === 2, 'two changes kept back');
  const sent = await receiver.received(6);
  assert.equal(sent.map(change), ['UP→DOWN', 'DOWN→UP', 'UP→DOWN', 'DOWN→UP', 'UP→DOWN', 'DOWN→UP']);
  const status = (await (await fetch(`${tk.url}/notifications`)).json()) as { settings: Record<string, unknown>; channels: { queued: number; delivered: number }[] };
  assert.equal(status.settings.perInstanceRate, { count: 6, windowMs: 60_000 });
  assert.equal([status.channels[0]!.queued, status.channels[0]!.delivered, receiver.requests.length], [0, 6, 6]);
  assert.match(await (await fetch(`${tk.url}/metrics`)).text(), /^vigil_notification_changes_kept_back_total\{reason="rate-limited"\} 2$/m);
});

test('per-instance-rate: a bad value is a config error naming the key', async () => {
  for (const value of ['fast', -1, 2.5, '6/0s', '6/soon']) {
    let error: unknown;
    try {
      const kernel = await startTestKernel({ plugins: ['notify'], config: { notify: { 'per-instance-rate': value } } });
      await kernel.stop();
    } catch (caught) {
      error = caught;
    }
    assert.equal((error as { problems?: string[] } | undefined)?.problems, [
      'plugin "notify": notify.per-instance-rate: must be a whole number of notifications a minute (6) or N/DURATION (6/1m, 3/10s); 0 turns it off',
    ], String(value));
  }
});

function entry(from: string, to: string, version: number): Entry {
  const notification = {
    kind: 'instance', id: `i-${version}`, type: 'STATUS_CHANGED', from, to, version, timestamp: new Date().toISOString(), reminder: 0, coalesced: 0, baseUrl: '',
    instance: { id: 'i', name: 'orders', healthUrl: '', managementUrl: null, serviceUrl: null, source: null, metadata: {}, statusInfo: { status: to, details: {} } },
  } satisfies InstanceNotification;
  return { notification, completion: new Completion() };
}

test('per-instance-rate: changes kept back that end where they started send nothing; their outbox items are done all the same', async () => {
  const passed: InstanceNotification[] = [];
  let kept = 0;
  const limit = new InstanceRateLimit({
    rate: { count: 1, windowMs: 50 }, wanted: () => true, next: ({ notification, completion }) => {
      passed.push(notification);
      completion.hold();
      completion.release();
    }, counted: () => { kept += 1; },
  });
  try {
    // UP → DOWN goes out; DOWN → UP → DOWN is kept back and folded into DOWN → DOWN: nothing.
    const entries = [entry('UP', 'DOWN', 1), entry('DOWN', 'UP', 2), entry('UP', 'DOWN', 3)];
    for (const each of entries) {
      limit.add(each);
      each.completion.release();
    }
    await Promise.all(entries.map((each) => each.completion.done));
    assert.equal(passed.map((n) => `${n.from}→${n.to}`), ['UP→DOWN']);
    assert.is(kept, 2);
  } finally {
    limit.stop();
  }
});

test.run();
