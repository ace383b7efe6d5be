import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

type Body = { type: string; from?: string; to?: string; instance?: { id: string; name: string }; reminder?: boolean; reminderCount?: number };

const bodies = (requests: readonly Received[]) => requests.map((r) => r.json as Body);
const changes = (requests: readonly Received[]) => bodies(requests).map((b) => `${b.instance?.name ?? b.type} ${b.from}→${b.to}`);
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

test('a status change sends exactly one message per channel; UNKNOWN:UP is ignored by default', async () => {
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], {
    'notify-webhook': { url: `${receiver.url}/webhook` },
    'notify-slack': { 'webhook-url': `${receiver.url}/slack`, 'rate-limit': 0 },
  });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  await setStatus(tk, id, 'DOWN');
  await receiver.received(1, onPath('/webhook'));
  await receiver.received(1, onPath('/slack'));
  // A later change of the same instance comes after everything earlier (one lane per instance): then count.
  await setStatus(tk, id, 'UP');
  const webhook = await receiver.received(2, onPath('/webhook'));
  const slack = await receiver.received(2, onPath('/slack'));
  assert.equal(changes(webhook), ['orders UP→DOWN', 'orders DOWN→UP']);
  assert.equal(slack.map((r) => (r.json as { text: string }).text), [`*orders* (${id}) is *DOWN*`, `*orders* (${id}) is *UP*`]);
  assert.is(receiver.requests.length, 4);
  const status = await notificationsStatus(tk);
  assert.equal(status.channels.map((c) => [c.name, c.delivered, c.failed]), [['notify-webhook', 2, 0], ['notify-slack', 2, 0]]);
});

test('ignore-changes: from:to, *:to and from:* are not notified; a channel may override the default', async () => {
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], {
    notify: { 'ignore-changes': ['UNKNOWN:UP', '*:OUT_OF_SERVICE', 'RESTRICTED:*'] },
    'notify-webhook': { url: `${receiver.url}/webhook` },
    'notify-slack': { 'webhook-url': `${receiver.url}/slack`, 'rate-limit': 0, 'ignore-changes': ['DOWN:UP'] },
  });
  const id = await registerInstance(tk, 'orders');
  for (const status of ['UP', 'OUT_OF_SERVICE', 'RESTRICTED', 'DOWN', 'UP', 'DOWN']) await setStatus(tk, id, status);
  const webhook = await receiver.received(3, onPath('/webhook'));
  const slack = await receiver.received(5, onPath('/slack'));
  assert.equal(changes(webhook), ['orders OUT_OF_SERVICE→RESTRICTED', 'orders DOWN→UP', 'orders UP→DOWN']);
  assert.equal(slack.map((r) => (r.json as { text: string }).text), ['UP', 'OUT_OF_SERVICE', 'RESTRICTED', 'DOWN', 'DOWN'].map((s) => `*orders* (${id}) is *${s}*`));
});

test('REGISTERED and DEREGISTERED are notified to a channel that asks for them (on:), status changes then are not', async () => {
  tk = await notifyKernel(['notify-webhook'], { 'notify-webhook': { url: `${receiver.url}/webhook`, on: ['REGISTERED', 'DEREGISTERED'] } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'DOWN');
  await tk.kernel.registry.deregister(id);
  const got = await receiver.received(2);
  assert.equal(bodies(got).map((b) => `${b.type} ${b.instance?.id}`), [`REGISTERED ${id}`, `DEREGISTERED ${id}`]);
});

test('hold: a blip shorter than the hold sends nothing, a real outage is sent once, reporting the status before it', async () => {
  tk = await notifyKernel(['notify-webhook'], { notify: { hold: '300ms' }, 'notify-webhook': { url: `${receiver.url}/webhook`, 'ignore-changes': [] } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  // Sent once it held for 300 ms: from then on UP is the status a run of changes starts from.
  await receiver.received(1);
  await setStatus(tk, id, 'DOWN');
  await setStatus(tk, id, 'UP');
  // UP → DOWN → OUT_OF_SERVICE within the hold is one change, UP → OUT_OF_SERVICE.
  await setStatus(tk, id, 'DOWN');
  await setStatus(tk, id, 'OUT_OF_SERVICE');
  await receiver.received(2);
  await setStatus(tk, id, 'UP');
  const all = await receiver.received(3);
  assert.equal(changes(all), ['orders UNKNOWN→UP', 'orders UP→OUT_OF_SERVICE', 'orders OUT_OF_SERVICE→UP']);
  assert.is((await notificationsStatus(tk)).pipeline.held, 3, 'DOWN, UP and DOWN were dropped');
});

test('group-window: changes inside the window are one message per channel', async () => {
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], {
    notify: { 'group-window': '300ms' },
    'notify-webhook': { url: `${receiver.url}/webhook` },
    'notify-slack': { 'webhook-url': `${receiver.url}/slack` },
  });
  const ids: string[] = [];
  for (let n = 0; n < 12; n++) ids.push(await registerInstance(tk, 'shop'));
  const billing = await registerInstance(tk, 'billing');
  await Promise.all([...ids, billing].map((id) => setStatus(tk!, id, 'UP')));
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'DOWN')));
  await setStatus(tk, billing, 'OUT_OF_SERVICE');
  const [group] = await receiver.received(1, onPath('/webhook'));
  const [slack] = await receiver.received(1, onPath('/slack'));
  const body = group!.json as { type: string; notifications: Body[]; text: string };
  assert.is(body.type, 'GROUP');
  assert.equal(body.notifications.map((n) => n.instance!.id).sort(), [...ids, billing].sort());
  const lines = (slack!.json as { text: string }).text.split('\n');
  assert.is(lines[0], '*13 changes of instance status*');
  // The first ten in the group's order: changes of different instances may reach it in another
  // order than they were recorded (each instance's own changes keep theirs).
  const grouped = body.notifications.map((n) => n.instance!.id).filter((id) => ids.includes(id));
  assert.is(lines[1], `12 instances of shop are DOWN: ${grouped.slice(0, 10).join(', ')} and 2 more`);
  assert.is(lines[2], `billing (${billing}) is OUT_OF_SERVICE`);
  // One more change, outside the window: its own message, after the group.
  await setStatus(tk, billing, 'UP');
  const after = await receiver.received(2, onPath('/webhook'));
  assert.equal(changes(after.slice(1)), ['billing OUT_OF_SERVICE→UP']);
});

test('self-preservation: 500 instances going OFFLINE in one status interval give one summary, and their return another', async () => {
  tk = await notifyKernel(['notify-webhook'], {
    notify: { 'self-preservation-window': '400ms' },
    'notify-webhook': { url: `${receiver.url}/webhook` },
  });
  const ids: string[] = [];
  for (let n = 0; n < 500; n++) ids.push(await registerInstance(tk, `app-${n % 7}`));
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'UP')));
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'OFFLINE')));
  const [lost] = await receiver.received(1);
  const body = lost!.json as { type: string; direction: string; count: number; total: number; text: string; instances: unknown[] };
  assert.equal({ ...body, instances: body.instances.length }, {
    id: (lost!.json as { id: string }).id, type: 'SELF_PRESERVATION', timestamp: (lost!.json as { timestamp: string }).timestamp,
    direction: 'lost', count: 500, total: 500, remaining: 500, text: "Vigil lost contact with 500 of 500 instances — suspect the network or Vigil's host", instances: 50,
  });
  // One comes back on its own: too few for a storm, so its own message after the window.
  await setStatus(tk, ids[0]!, 'DOWN');
  const second = await receiver.received(2);
  assert.equal(changes(second.slice(1)), ['app-0 OFFLINE→DOWN']);
  await Promise.all(ids.slice(1).map((id) => setStatus(tk!, id, 'UP')));
  const third = await receiver.received(3);
  assert.equal(bodies(third.slice(2)).map((b) => [b.type, (b as { direction?: string }).direction, (b as { count?: number }).count]), [['SELF_PRESERVATION', 'regained', 499]]);
  assert.is(receiver.requests.length, 3);
  assert.is((await notificationsStatus(tk)).pipeline.summaries, 2);
});

test('reminders: re-sent every period while DOWN, marked, never suppressed as "same status"; none after recovery', async () => {
  tk = await notifyKernel(['notify-webhook'], {
    notify: { reminder: { period: '200ms', 'check-interval': '20ms' } },
    'notify-webhook': { url: `${receiver.url}/webhook` },
  });
  const a = await registerInstance(tk, 'orders');
  await setStatus(tk, a, 'UP');
  await setStatus(tk, a, 'DOWN');
  const version = tk.kernel.registry.get(a)!.version;
  const first = await receiver.received(3);
  assert.equal(bodies(first).map((b) => [b.from, b.to, b.reminder, b.reminderCount]), [['UP', 'DOWN', false, 0], ['UP', 'DOWN', true, 1], ['UP', 'DOWN', true, 2]]);
  assert.equal(first.map((r) => r.headers['webhook-id']), [`${a}-${version}`, `${a}-${version}-r1`, `${a}-${version}-r2`]);
  await setStatus(tk, a, 'UP');
  await receiver.received(1, (r) => (r.json as Body).to === 'UP');
  // A second instance is the clock: two of its reminders take two periods, in which the first would have been reminded again.
  const b = await registerInstance(tk, 'billing');
  await setStatus(tk, b, 'OFFLINE');
  await receiver.received(2, (r) => (r.json as Body).instance?.id === b && (r.json as Body).reminder === true, 15_000);
  const ofA = bodies(receiver.requests).filter((body) => body.instance?.id === a);
  assert.equal(ofA.map((body) => `${body.to}${body.reminder ? ' reminder' : ''}`), ['DOWN', 'DOWN reminder', 'DOWN reminder', 'UP']);
});

test('a filter with a ttl silences an instance until it expires; an application filter until it is deleted', async () => {
  tk = await notifyKernel(['notify-webhook'], { 'notify-webhook': { url: `${receiver.url}/webhook` } });
  const a = await registerInstance(tk, 'orders');
  const b = await registerInstance(tk, 'billing');
  await setStatus(tk, a, 'UP');
  await setStatus(tk, b, 'UP');
  const byInstance = await fetch(`${tk.url}/notifications/filters?instanceId=${a}&ttl=300`, { method: 'POST' }).then((r) => r.json()) as { id: string };
  const byName = await fetch(`${tk.url}/notifications/filters?applicationName=billing`, { method: 'POST' }).then((r) => r.json()) as { id: string };
  await setStatus(tk, a, 'DOWN');
  await setStatus(tk, b, 'DOWN');
  // Wait for the ttl to pass: the filter is gone from the list.
  for (;;) {
    const list = await fetch(`${tk.url}/notifications/filters`).then((r) => r.json()) as { id: string }[];
    if (!list.some((f) => f.id === byInstance.id)) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await setStatus(tk, a, 'UP');
  await setStatus(tk, b, 'OUT_OF_SERVICE');
  assert.is((await fetch(`${tk.url}/notifications/filters/${byName.id}`, { method: 'DELETE' })).status, 200);
  await setStatus(tk, b, 'UP');
  const got = await receiver.received(2);
  assert.equal(changes(got), ['orders DOWN→UP', 'billing OUT_OF_SERVICE→UP']);
  assert.is((await notificationsStatus(tk)).pipeline.filtered, 3);
});

test.run();
