import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { call, eventually } from '../../support/http.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

interface ApplicationBody {
  id: string;
  type: string;
  timestamp: string;
  application: string;
  up: number;
  required: number;
  total: number;
  disappeared: boolean;
  forgotten: boolean;
  since: string;
  text: string;
  instances: { id: string; status: string }[];
}

let tk: TestKernel | undefined;
let receiver: Receiver | undefined;
test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await receiver?.close();
});

async function kernel(notify: Record<string, unknown>, webhook: Record<string, unknown> = {}): Promise<TestKernel> {
  receiver = await Receiver.start();
  tk = await notifyKernel(['notify-webhook'], { notify: { 'per-instance-rate': 0, ...notify }, 'notify-webhook': { url: `${receiver.url}/hook`, ...webhook } });
  return tk;
}

const isApplication = (request: Received) => String((request.json as { type: string }).type).startsWith('APPLICATION_');
const applicationBodies = () => receiver!.requests.filter(isApplication).map((request) => request.json as ApplicationBody);
const hashOf = (name: string) => createHash('sha1').update(name).digest('hex').slice(0, 12);

test('expectations: fewer than min-up UP for `for` is one APPLICATION_DEGRADED with the counts and each instance; enough UP again is one APPLICATION_RECOVERED', async () => {
  const k = await kernel({ expectations: [{ applications: ['payments-*'], 'min-up': 2, for: '1s' }] });
  const [a, b] = [await registerInstance(k, 'payments-api'), await registerInstance(k, 'payments-api')];
  const other = await registerInstance(k, 'orders');
  for (const id of [a, b, other]) await setStatus(k, id, 'UP');
  await setStatus(k, other, 'DOWN');
  await setStatus(k, b, 'DOWN');
  const down = Date.parse(k.kernel.registry.get(b)!.statusTimestamp);
  const [degraded] = await receiver!.received(1, isApplication, 10_000);
  const body = degraded!.json as ApplicationBody;
  const since = Date.parse(body.since);
  assert.ok(since >= down && since - down < 1500, `below since the DOWN (${body.since})`);
  assert.ok(Date.parse(body.timestamp) - since >= 1000, 'not before `for`');
  assert.equal(body, {
    id: `application-${hashOf('payments-api')}-${since}-degraded`,
    type: 'APPLICATION_DEGRADED',
    timestamp: body.timestamp,
    application: 'payments-api',
    up: 1,
    required: 2,
    total: 2,
    disappeared: false,
    forgotten: false,
    since: body.since,
    text: 'payments-api is degraded: 1 of 2 instances UP, 2 required',
    instances: [{ id: b, status: 'DOWN' }, { id: a, status: 'UP' }],
  });
  assert.is(degraded!.headers['webhook-id'], body.id);
  const status = await notificationsStatus(k) as unknown as { expectations: unknown[] };
  assert.equal(status.expectations, [{ application: 'payments-api', minUp: 2, for: 1000, up: 1, total: 2, state: 'degraded', since: body.since }]);
  await setStatus(k, b, 'UP');
  const [, recovered] = await receiver!.received(2, isApplication, 10_000);
  const back = recovered!.json as ApplicationBody;
  assert.equal({ ...back, timestamp: '' }, {
    id: `application-${hashOf('payments-api')}-${since}-recovered`, type: 'APPLICATION_RECOVERED', timestamp: '', application: 'payments-api', up: 2, required: 2, total: 2,
    disappeared: false, forgotten: false, since: back.timestamp, text: 'payments-api has recovered: 2 of 2 instances UP, 2 required',
    instances: [{ id: a, status: 'UP' }, { id: b, status: 'UP' }].sort((x, y) => x.id.localeCompare(y.id)),
  });
  // orders matches no expectation: only its own status change went out.
  assert.equal(applicationBodies().map((n) => `${n.type} ${n.application}`), ['APPLICATION_DEGRADED payments-api', 'APPLICATION_RECOVERED payments-api']);
  assert.equal((await notificationsStatus(k) as unknown as { expectations: { state: string }[] }).expectations.map((e) => e.state), ['ok']);
  assert.is((await notificationsStatus(k)).pipeline.expectations, 2);
});

test('expectations: a short dip within `for` says nothing', async () => {
  const k = await kernel({ expectations: [{ applications: ['payments'], 'min-up': 1, for: '1h' }] });
  const id = await registerInstance(k, 'payments');
  await setStatus(k, id, 'UP');
  await setStatus(k, id, 'DOWN');
  await eventually(async () => ((await notificationsStatus(k)) as unknown as { expectations: { state: string }[] }).expectations[0]?.state === 'below', 'the shortfall to be seen');
  await setStatus(k, id, 'UP');
  await eventually(async () => ((await notificationsStatus(k)) as unknown as { expectations: { state: string }[] }).expectations[0]?.state === 'ok', 'the shortfall to be over');
  await receiver!.received(2);
  assert.equal(applicationBodies(), []);
});

test('expectations: an application whose last instance left has disappeared (0 UP); after expectations-forget-after it is no longer expected', async () => {
  const k = await kernel({ expectations: [{ applications: ['orders'], 'min-up': 1, for: '500ms' }], 'expectations-forget-after': '3s' });
  const id = await registerInstance(k, 'orders');
  await setStatus(k, id, 'UP');
  await k.kernel.registry.deregister(id);
  const [gone] = await receiver!.received(1, isApplication, 10_000);
  const body = gone!.json as ApplicationBody;
  assert.equal({ ...body, timestamp: '', since: '' }, {
    id: `application-${hashOf('orders')}-${Date.parse(body.since)}-degraded`, type: 'APPLICATION_DEGRADED', timestamp: '', application: 'orders', up: 0, required: 1, total: 0,
    disappeared: true, forgotten: false, since: '', text: 'orders has disappeared: no instance registered, 1 required UP', instances: [],
  });
  const listed = ((await notificationsStatus(k)) as unknown as { expectations: unknown[] }).expectations;
  assert.equal(listed, [{ application: 'orders', minUp: 1, for: 500, up: 0, total: 0, state: 'disappeared', since: body.since }]);
  const [, forgotten] = await receiver!.received(2, isApplication, 10_000);
  const last = forgotten!.json as ApplicationBody;
  assert.equal([last.type, last.forgotten, last.disappeared, last.since, last.text], [
    'APPLICATION_RECOVERED', true, true, body.since, `orders is no longer expected: no instance registered since ${body.since}`,
  ]);
  assert.ok(Date.parse(last.timestamp) - Date.parse(body.since) >= 3000, 'not before forget-after');
  assert.ok(k.logs().some((line) => line.includes(`orders has had no instance since ${body.since}: no longer expected (notify.expectations-forget-after)`)), k.logs().join('\n'));
  assert.equal(((await notificationsStatus(k)) as unknown as { expectations: unknown[] }).expectations, []);
});

test('expectations: an application that comes back after disappearing recovers', async () => {
  const k = await kernel({ expectations: [{ applications: ['orders'], 'min-up': 1, for: '300ms' }] });
  const id = await registerInstance(k, 'orders');
  await setStatus(k, id, 'UP');
  await k.kernel.registry.deregister(id);
  await receiver!.received(1, isApplication, 10_000);
  const again = await registerInstance(k, 'orders');
  await setStatus(k, again, 'UP');
  const [, back] = await receiver!.received(2, isApplication, 10_000);
  assert.equal([(back!.json as ApplicationBody).type, (back!.json as ApplicationBody).forgotten, (back!.json as ApplicationBody).text],
    ['APPLICATION_RECOVERED', false, 'orders has recovered: 1 of 1 instance UP, 1 required']);
});

test('expectations: a maintenance window over the application holds its verdict back until the window ends; a filter silences it', async () => {
  const k = await kernel({ expectations: [{ applications: ['payments', 'billing'], 'min-up': 1, for: '300ms' }] });
  const [pay, bill] = [await registerInstance(k, 'payments'), await registerInstance(k, 'billing')];
  for (const id of [pay, bill]) await setStatus(k, id, 'UP');
  const made = await call('POST', `${k.url}/maintenance`, { json: { applications: ['payments'], duration: '1h' } });
  assert.is(made.status, 201);
  assert.is((await call('POST', `${k.url}/notifications/filters?applicationName=billing`)).status, 200);
  await setStatus(k, pay, 'DOWN');
  await setStatus(k, bill, 'DOWN');
  // The window held payments' change and then its verdict; the filter silenced billing's change and then its verdict.
  await eventually(async () => {
    const { pipeline } = await notificationsStatus(k);
    return pipeline.inMaintenance === 2 && pipeline.filtered === 2;
  }, 'payments\' verdict held back and billing\'s filtered', 10_000);
  assert.equal(receiver!.requests, []);
  assert.is((await call('DELETE', `${k.url}/maintenance/M-1`)).status, 204);
  const [degraded] = await receiver!.received(1, isApplication, 10_000);
  assert.equal([(degraded!.json as ApplicationBody).application, (degraded!.json as ApplicationBody).text], ['payments', 'payments is degraded: 0 of 1 instance UP, 1 required']);
  assert.equal(applicationBodies().map((n) => n.application), ['payments']);
});

test('expectations: a reload that drops the expectation of a degraded application closes its incident (RECOVERED, forgotten)', async () => {
  const k = await kernel({ expectations: [{ applications: ['payments'], 'min-up': 1, for: '200ms' }] });
  const id = await registerInstance(k, 'payments');
  await setStatus(k, id, 'UP');
  await setStatus(k, id, 'DOWN');
  await receiver!.received(1, isApplication, 10_000);
  await k.reload({ notify: { 'per-instance-rate': 0, expectations: [] }, 'notify-webhook': { url: `${receiver!.url}/hook` } });
  const [, closed] = await receiver!.received(2, isApplication, 10_000);
  const body = closed!.json as ApplicationBody;
  assert.equal([body.type, body.forgotten, body.disappeared, body.required, body.text],
    ['APPLICATION_RECOVERED', true, false, 0, 'payments is no longer expected: no expectation covers it any more']);
  assert.equal(((await notificationsStatus(k)) as unknown as { expectations: unknown[] }).expectations, []);
});

test('expectations: in every channel\'s default `on`; a channel whose `on` leaves them out hears none', async () => {
  const k = await kernel({ expectations: [{ applications: ['payments'], 'min-up': 1, for: '200ms' }] }, { on: ['STATUS_CHANGED'] });
  const status = await notificationsStatus(k) as unknown as { settings: { on: string[] }; channels: { on: string[] }[] };
  assert.equal(status.settings.on, ['STATUS_CHANGED', 'APPLICATION_DEGRADED', 'APPLICATION_RECOVERED']);
  assert.equal(status.channels[0]!.on, ['STATUS_CHANGED']);
  const id = await registerInstance(k, 'payments');
  await setStatus(k, id, 'UP');
  await setStatus(k, id, 'DOWN');
  await eventually(async () => (await notificationsStatus(k)).pipeline.expectations === 1, 'the verdict to be made');
  await receiver!.received(1);
  assert.equal(receiver!.requests.map((request) => (request.json as { type: string }).type), ['STATUS_CHANGED']);
});

test.run();
