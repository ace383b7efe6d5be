import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import type { CheckOutcome } from '../../../plugins/monitor/check-outcome.js';
import { ConcurrencyLimiter } from '../../../plugins/monitor/concurrency-limiter.js';
import { IntervalCheck, type Clock } from '../../../plugins/monitor/interval-check.js';
import { phaseOf } from '../../../plugins/monitor/schedule-math.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => silent };

class FakeClock implements Clock {
  time = 1_000_000;
  timers = 0;
  now(): number {
    return this.time;
  }
  every(): () => void {
    this.timers += 1;
    return () => { this.timers -= 1; };
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test('IntervalCheck.reconfigure: waiting instances move to the new interval, a running check is not cut and stays scheduled', async () => {
  const clock = new FakeClock();
  const ran: string[] = [];
  let finish: (outcome: CheckOutcome) => void = () => undefined;
  const check = new IntervalCheck({
    name: 'status', clock, log: silent, limiter: new ConcurrencyLimiter(10), interval: 10_000, lifetime: 10_000, maxBackoff: 60_000,
    check: (id) => {
      ran.push(id);
      return id === 'slow' ? new Promise<CheckOutcome>((resolve) => { finish = resolve; }) : Promise.resolve('ok');
    },
  });
  check.start();
  check.now('quick');
  check.now('slow');
  await flush();
  assert.equal(ran, ['quick', 'slow']);
  check.reconfigure({ interval: 1000, lifetime: 1000, maxBackoff: 1000 });
  assert.is(clock.timers, 1, 'one timer, replaced');
  const quick = check.stateOf('quick')!;
  assert.ok(quick.due! > clock.time && quick.due! <= clock.time + 1000, `due within the new interval: ${quick.due! - clock.time} ms`);
  assert.is(quick.due! % 1000, phaseOf('quick', 1000) % 1000, 'on its phase of the new interval');
  assert.ok(check.stateOf('slow')!.running, 'the running check goes on');
  finish('ok');
  await flush();
  const slow = check.stateOf('slow')!;
  assert.not.ok(slow.running);
  // Its result counts from when it began: due again on its phase, at least a lifetime (1 s) later.
  assert.ok(slow.due !== undefined && slow.due - clock.time < 2000, 'and is rescheduled on the new cadence once it ends');
  clock.time += 2000;
  check.tick();
  await flush();
  assert.equal(ran.slice(2).sort(), ['quick', 'slow'], 'both checked again within two new intervals');
  check.stop();
});

test('reload of the monitor section: the new interval and timeout apply while running; the pool size needs a restart', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'monitor'], config: { monitor: { 'status-interval': '1h', 'status-lifetime': '1h' } } });
  const fake = await FakeActuator.start();
  try {
    const { id } = (await call('POST', `${tk.url}/instances`, { json: fake.registration('shop') })).json as { id: string };
    await tk.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED', 'first status');
    const report = await tk.reload({ monitor: { 'status-interval': '200ms', 'status-lifetime': '0ms', 'default-timeout': '100ms', 'max-connections-per-origin': 2 } });
    assert.equal(report, { applied: ['monitor'], restart: ['monitor.max-connections-per-origin'], failed: [] });
    // Checked again on the new cadence: hours would pass before the old one.
    const before = fake.requestsTo('/health').length;
    fake.on('GET', '/health', { json: { status: 'UP' }, delayMs: 1000 });
    // The new 100 ms timeout applies: a slow answer makes the instance OFFLINE.
    const offline = await tk.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED' && event.statusInfo.status === 'OFFLINE', 'OFFLINE after the new timeout', 5000);
    assert.ok(fake.requestsTo('/health').length > before);
    assert.is((offline as { statusInfo: { details: Record<string, unknown> } }).statusInfo.details.exception, 'ETIMEDOUT');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
