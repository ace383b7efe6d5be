import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { LEASES, type Lease, type VigilPlugin } from '../../../core/plugin-api.js';
import { call, eventually } from '../../support/http.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, registerInstance, notifyKernel, setStatus, urlsOf } from './support.js';

interface WebhookBody {
  id: string;
  type: string;
  instance: { id: string; name: string; statusInfo: { status: string } };
  from: string;
  to: string;
  afterMaintenance?: string;
}

let tk: TestKernel | undefined;
const receivers: Receiver[] = [];
test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});

async function twoTeams(notify: Record<string, unknown> = {}): Promise<{ payments: Receiver; orders: Receiver; kernel: TestKernel }> {
  const [payments, orders] = [await Receiver.start(), await Receiver.start()];
  receivers.push(payments, orders);
  tk = await notifyKernel(['notify-webhook', 'notify-mattermost'], {
    notify: { 'per-instance-rate': 0, ...notify },
    // Two receivers, each standing for a team's own channel.
    'notify-webhook': { url: `${payments.url}/payments-team` },
    'notify-mattermost': { url: `${orders.url}/orders-team` },
  });
  return { payments, orders, kernel: tk };
}

const changes = (requests: readonly Received[]) => requests.map((request) => {
  const body = request.json as WebhookBody;
  return `${body.instance.name} ${body.from}→${body.to}${body.afterMaintenance ? ` after ${body.afterMaintenance}` : ''}`;
});
const texts = (requests: readonly Received[]) => requests.map((request) => (request.json as { text: string }).text);

async function window(kernel: TestKernel, body: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${kernel.url}/maintenance`, { json: body });
  assert.is(reply.status, 201, reply.text);
  return (reply.json as { id: string }).id;
}

/** Resolves once the clock is past the instance's last status change: what comes next is in a later millisecond. */
async function pastLastChange(kernel: TestKernel, id: string): Promise<void> {
  const changedAt = Date.parse(kernel.kernel.registry.get(id)!.statusTimestamp);
  await eventually(() => Date.now() > changedAt, 'the clock to pass the change');
}

/** `LEASES` whose `notify-maintenance` is held only while `gate.open`: the test decides when the end of a window can be reported. */
function maintenanceLeaseGate(): { plugin: VigilPlugin<never>; gate: { open: boolean } } {
  const gate = { open: true };
  const always: Lease = { held: true, token: 1 };
  const gated: Lease = {
    get held() {
      return gate.open;
    },
    get token() {
      return gate.open ? 1 : undefined;
    },
  };
  const plugin = {
    name: 'maintenance-lease-gate',
    configKey: null,
    setup(ctx: { services: { provide: (token: typeof LEASES, value: { lease: (name: string) => Lease }) => void } }) {
      ctx.services.provide(LEASES, { lease: (name) => (name === 'notify-maintenance' ? gated : always) });
    },
  } as unknown as VigilPlugin<never>;
  return { plugin, gate };
}

test('a window holds back its applications\' notifications for both teams; its end reports the outage it left, once, as a change from before it', async () => {
  const { payments, orders, kernel } = await twoTeams();
  const api = await registerInstance(kernel, 'payments-api');
  const worker = await registerInstance(kernel, 'payments-worker');
  const shop = await registerInstance(kernel, 'orders');
  for (const id of [api, worker, shop]) await setStatus(kernel, id, 'UP');
  const id = await window(kernel, { applications: ['payments-*'], duration: '1h', reason: 'database upgrade' });
  assert.is(id, 'M-1');
  await setStatus(kernel, api, 'DOWN');
  await setStatus(kernel, worker, 'DOWN');
  await setStatus(kernel, worker, 'UP');
  const late = await registerInstance(kernel, 'payments-batch');
  await setStatus(kernel, late, 'UP');
  // The new instance's UNKNOWN→UP counts (the window comes before the channels' rules); its registration was never to be sent.
  await eventually(async () => (await notificationsStatus(kernel)).pipeline.inMaintenance === 4, 'four changes held back');
  // Another team's application is not in the window: its outage goes out at once.
  await setStatus(kernel, shop, 'DOWN');
  await payments.received(1);
  await orders.received(1);
  assert.equal(changes(payments.requests), ['orders UP→DOWN']);
  assert.equal((await notificationsStatus(kernel)).pipeline.inMaintenance, 4);

  assert.is((await call('DELETE', `${kernel.url}/maintenance/${id}`)).status, 204);
  const [, after] = await payments.received(2);
  const [, text] = await orders.received(2);
  const event = kernel.kernel.registry.eventsOf(api).at(-1)!;
  assert.equal(after!.json, {
    id: `${api}-${event.version}-after-M-1`,
    type: 'STATUS_CHANGED',
    event: { type: 'STATUS_CHANGED', version: event.version, timestamp: event.timestamp },
    instance: {
      id: api, name: 'payments-api', ...urlsOf(kernel, api), source: 'http-api', metadata: {}, statusInfo: { status: 'DOWN', details: {} },
    },
    from: 'UP',
    to: 'DOWN',
    reminder: false,
    reminderCount: 0,
    coalesced: 0,
    afterMaintenance: 'M-1',
  });
  assert.is((text!.json as { text: string }).text, `**payments-api** (${api}) is **DOWN** after maintenance M-1 (was UP before it)`);
  // The new instance's UNKNOWN→UP is a change too, which the channels' ignore-changes (UNKNOWN:UP) then drops.
  assert.ok(kernel.logs().some((line) => line.includes('maintenance M-1 ended: 2 instances changed status during it')), kernel.logs().join('\n'));
  // Over: the next change is an ordinary one.
  await setStatus(kernel, api, 'UP');
  await payments.received(3);
  assert.equal(changes(payments.requests), ['orders UP→DOWN', 'payments-api UP→DOWN after M-1', 'payments-api DOWN→UP']);
  await orders.received(3);
  assert.equal(texts(orders.requests), [
    `**orders** (${shop}) is **DOWN**`,
    `**payments-api** (${api}) is **DOWN** after maintenance M-1 (was UP before it)`,
    `**payments-api** (${api}) is **UP**`,
  ]);
});

test('a window that runs out reports by itself; instances listed by id are held whatever their application', async () => {
  const { payments, kernel } = await twoTeams();
  const a = await registerInstance(kernel, 'orders');
  const b = await registerInstance(kernel, 'orders');
  for (const id of [a, b]) await setStatus(kernel, id, 'UP');
  await window(kernel, { instances: [a], duration: '1500ms' });
  await setStatus(kernel, a, 'OUT_OF_SERVICE');
  await setStatus(kernel, b, 'DOWN');
  const [first, second] = await payments.received(2, undefined, 10_000);
  assert.equal(changes([first!, second!]), ['orders UP→DOWN', 'orders UP→OUT_OF_SERVICE after M-1']);
  assert.is((second!.json as WebhookBody).instance.id, a);
  assert.equal((await notificationsStatus(kernel)).pipeline.inMaintenance, 1);
});

test('overlapping windows: an instance still in another window is reported when the last one ends, from before the first', async () => {
  const { payments, kernel } = await twoTeams();
  const api = await registerInstance(kernel, 'payments-api');
  await setStatus(kernel, api, 'UP');
  const first = await window(kernel, { applications: ['payments-*'], duration: '1h' });
  await setStatus(kernel, api, 'DOWN');
  // Begun while the instance is DOWN: on its own it would see no change at all.
  const second = await window(kernel, { instances: [api], duration: '1h' });
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${second} began`)), 'the second window to be open');
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${first}`)).status, 204);
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${first} ended: 0 instances changed status during it`)), 'the first window to end');
  assert.is(payments.requests.length, 0);
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${second}`)).status, 204);
  const [after] = await payments.received(1);
  assert.equal(changes([after!]), [`payments-api UP→DOWN after ${second}`]);
});

test('with hold: a change made inside a window and still held when it ends is reported once, by the end of the window', async () => {
  const { payments, kernel } = await twoTeams({ hold: '600ms' });
  const api = await registerInstance(kernel, 'payments-api');
  await setStatus(kernel, api, 'UP');
  await payments.received(0);
  const id = await window(kernel, { applications: ['payments-api'], duration: '1h' });
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${id} began`)), 'the window to be open');
  await setStatus(kernel, api, 'DOWN');
  // Made inside the window: the window ends at a later millisecond than the change (a window is
  // [start, end); on a fast machine the DELETE can otherwise land in the change's millisecond).
  const changedAt = Date.parse(kernel.kernel.registry.get(api)!.statusTimestamp);
  await eventually(() => Date.now() > changedAt, 'the clock to pass the change');
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${id}`)).status, 204);
  await payments.received(1);
  // The held DOWN comes out of its hold after the end: it happened inside the window, so it stays held back.
  let pipeline: unknown;
  await eventually(async () => {
    const status = await notificationsStatus(kernel);
    pipeline = status.pipeline;
    return status.pipeline.inMaintenance === 1;
  }, 'the held change to be held back').catch((error: unknown) => {
    throw new Error(`${String(error)}; the pipeline's counters: ${JSON.stringify(pipeline)}; logs:\n${kernel.logs().join('\n')}`);
  });
  assert.equal(changes(payments.requests), [`payments-api UP→DOWN after ${id}`]);
});

test('a change after a window\'s end waits for the window\'s end report: the channels hear of the outage before the recovery', async () => {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  const { plugin, gate } = maintenanceLeaseGate();
  tk = await notifyKernel(['notify-webhook', plugin], { notify: { 'per-instance-rate': 0 }, 'notify-webhook': { url: receiver.url } });
  const kernel = tk;
  const api = await registerInstance(kernel, 'payments-api');
  await setStatus(kernel, api, 'UP');
  await pastLastChange(kernel, api);
  const id = await window(kernel, { applications: ['payments-api'], duration: '1h' });
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${id} began`)), 'the window to be open');
  await setStatus(kernel, api, 'DOWN');
  await pastLastChange(kernel, api);
  // The node that reports the end is slow to get to it (here: it does not hold the lease for a while).
  gate.open = false;
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${id}`)).status, 204);
  await setStatus(kernel, api, 'UP');
  await eventually(() => receiver.requests.length > 0 || kernel.logs().some((line) => line.includes(`waits for the end report of maintenance ${id}`)), 'the recovery to be sent or to wait');
  gate.open = true;
  const requests = await receiver.received(2);
  assert.equal(changes(requests), [`payments-api UP→DOWN after ${id}`, 'payments-api DOWN→UP']);
});

test('with hold: an outage inside a window, over just after the window\'s end and within the hold: the report tells the outage, the recovery is still sent', async () => {
  const { payments, kernel } = await twoTeams({ hold: '2s' });
  const api = await registerInstance(kernel, 'payments-api');
  await setStatus(kernel, api, 'UP');
  await pastLastChange(kernel, api);
  const id = await window(kernel, { applications: ['payments-api'], duration: '1h' });
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${id} began`)), 'the window to be open');
  await setStatus(kernel, api, 'DOWN');
  await pastLastChange(kernel, api);
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${id}`)).status, 204);
  await payments.received(1);
  // Within the hold of the DOWN, but after the window: the DOWN was the window's (its report told it), not part of this change's run.
  await setStatus(kernel, api, 'UP');
  const requests = await payments.received(2);
  assert.equal(changes(requests), [`payments-api UP→DOWN after ${id}`, 'payments-api DOWN→UP']);
});

test('a notification filter still silences a change reported after maintenance; reminders skip an instance in a window', async () => {
  const { payments, kernel } = await twoTeams({ reminder: { period: '300ms', 'check-interval': '100ms' } });
  const api = await registerInstance(kernel, 'payments-api');
  const quiet = await registerInstance(kernel, 'billing');
  for (const id of [api, quiet]) await setStatus(kernel, id, 'UP');
  await setStatus(kernel, api, 'DOWN');
  await payments.received(1);
  const id = await window(kernel, { applications: ['payments-api', 'billing'], duration: '1h' });
  await eventually(async () => (await notificationsStatus(kernel)).pipeline.inMaintenance >= 2, 'reminders held back in the window');
  assert.equal(changes(payments.requests), ['payments-api UP→DOWN']);
  assert.is((await call('POST', `${kernel.url}/notifications/filters?applicationName=billing`)).status, 200);
  await setStatus(kernel, quiet, 'DOWN');
  // Made inside the window: the window ends at a later millisecond than the change (a change in
  // the end's millisecond is after the window, notified on its own and not in the report).
  const changedAt = Date.parse(kernel.kernel.registry.get(quiet)!.statusTimestamp);
  await eventually(() => Date.now() > changedAt, 'the clock to pass the change');
  assert.is((await call('DELETE', `${kernel.url}/maintenance/${id}`)).status, 204);
  await eventually(() => kernel.logs().some((line) => line.includes(`maintenance ${id} ended: 1 instance changed status during it`)), 'the window to end');
  // Filtered twice: the change itself (filters come first), then its report at the end.
  await eventually(async () => (await notificationsStatus(kernel)).pipeline.filtered === 2, 'billing\'s report to be filtered');
  // The DOWN instance is reminded of again once the window is over.
  const reminders = await payments.received(2);
  assert.equal(changes(reminders), ['payments-api UP→DOWN', 'payments-api UP→DOWN']);
  assert.is(payments.requests.filter((request) => (request.json as WebhookBody & { reminder: boolean }).reminder).length, 1);
});

test('GET /metrics: changes held back by a window are counted under reason="in-maintenance"', async () => {
  const receiver = await Receiver.start();
  receivers.push(receiver);
  tk = await notifyKernel(['notify-webhook', 'metrics'], { notify: { 'per-instance-rate': 0 }, 'notify-webhook': { url: receiver.url } });
  const id = await registerInstance(tk, 'orders');
  await window(tk, { instances: [id], duration: '1h' });
  await setStatus(tk, id, 'UP');
  await setStatus(tk, id, 'DOWN');
  await eventually(async () => (await notificationsStatus(tk!)).pipeline.inMaintenance === 2, 'both changes held back');
  const metrics = (await call('GET', `${tk.url}/metrics`)).text;
  assert.ok(metrics.includes('vigil_notification_changes_kept_back_total{reason="in-maintenance"} 2'), metrics);
});

test.run();
