import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { METRICS, type MetricFamily } from '../../../core/kits/services/index.js';
import { ServiceRegistry } from '../../../core/services.js';
import { CheckMetrics } from '../../../plugins/monitor/check-metrics.js';
import { BUSY_UTILIZATION, eventLoopLoad, FollowUpGovernor } from '../../../plugins/monitor/follow-up-governor.js';

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** A governor whose load is set by the test, and whose timer never fires on its own. */
function governed(max: number) {
  const load = { value: 0 };
  const governor = new FollowUpGovernor({ max, load: () => load.value, tickMs: 3_600_000 });
  return { governor, load };
}

/** `count` tasks that run until released; `started` counts those that began. */
function hold(governor: FollowUpGovernor, count: number) {
  const release: (() => void)[] = [];
  let started = 0;
  const done = Array.from({ length: count }, () => governor.run(() => {
    started += 1;
    return new Promise<void>((resolve) => release.push(resolve));
  }));
  return { release, done, started: () => started };
}

test('a busy loop halves the follow-ups\' cap down to one; a loop with room adds one back per look, up to the max', () => {
  const { governor, load } = governed(16);
  assert.is(governor.cap, 16);
  load.value = BUSY_UTILIZATION + 0.01;
  const caps: number[] = [];
  for (let look = 0; look < 6; look += 1) {
    governor.adjust();
    caps.push(governor.cap);
  }
  assert.equal(caps, [8, 4, 2, 1, 1, 1]);
  // At the threshold there is room: the cap grows one a look, and never past the max.
  load.value = BUSY_UTILIZATION;
  for (let look = 0; look < 20; look += 1) governor.adjust();
  assert.is(governor.cap, 16);
  governor.stop();
});

test('the cap holds back follow-ups that have not started; those running finish, and the line moves as the cap grows', async () => {
  const { governor, load } = governed(4);
  load.value = 1;
  governor.adjust();
  governor.adjust();
  assert.is(governor.cap, 1);
  const tasks = hold(governor, 5);
  for (let i = 0; i < 3; i += 1) await turn();
  assert.is(tasks.started(), 1, 'one at a time while the loop is busy');
  assert.is(governor.waiting, 4);
  load.value = 0;
  governor.adjust();
  for (let i = 0; i < 3; i += 1) await turn();
  assert.is(governor.cap, 2);
  assert.is(tasks.started(), 2);
  // The loop gets busy again: the cap falls, and nothing running is cut.
  load.value = 1;
  governor.adjust();
  tasks.release.shift()!();
  for (let i = 0; i < 3; i += 1) await turn();
  assert.is(governor.active, 1, 'the finished one is not replaced while a running one fills the cap');
  assert.is(tasks.started(), 2);
  load.value = 0;
  for (let look = 0; look < 3; look += 1) governor.adjust();
  for (let i = 0; i < 3; i += 1) await turn();
  assert.is(tasks.started(), 5);
  for (const release of tasks.release) release();
  await Promise.all(tasks.done);
  assert.is(governor.active, 0);
  governor.stop();
});

test('a reload\'s max applies at once when lower, and the cap climbs to a higher one', () => {
  const { governor, load } = governed(16);
  governor.resize(4);
  assert.is(governor.cap, 4);
  governor.resize(8);
  assert.is(governor.cap, 4);
  load.value = 0;
  for (let look = 0; look < 10; look += 1) governor.adjust();
  assert.is(governor.cap, 8);
  governor.stop();
});

test('with the loop\'s own count: a loop kept busy brings the cap down at the next tick', async () => {
  const governor = new FollowUpGovernor({ max: 16, load: eventLoopLoad(), tickMs: 10 });
  const tasks = hold(governor, 40);
  // Busy on purpose: 50 ms in one callback, more than any tick's worth of room.
  const until = performance.now() + 50;
  while (performance.now() < until) { /* the loop is held */ }
  // The next tick sees it (the tick's timer is unref'd: this interval keeps the test process up).
  const alive = setInterval(() => undefined, 1000);
  while (governor.cap === 16) await new Promise((resolve) => setTimeout(resolve, 5));
  clearInterval(alive);
  assert.ok(governor.cap <= 8, `cap ${governor.cap}`);
  governor.stop();
  for (const release of tasks.release) release();
});

test('the two gauges read the line as it is at scrape time, and nothing of it while monitoring is stopped', async () => {
  const services = new ServiceRegistry().forPlugin('monitor', 0);
  let line: FollowUpGovernor | undefined;
  new CheckMetrics().contribute(services, () => line);
  const families = services.collect(METRICS) as MetricFamily[];
  const read = async (name: string) => [...await families.find((family) => family.name === name)!.collect()];
  assert.equal(await read('vigil_follow_up_limit'), []);
  assert.equal(await read('vigil_follow_ups_waiting'), [{ value: 0 }]);
  const { governor, load } = governed(8);
  line = governor;
  load.value = 1;
  governor.adjust();
  const tasks = hold(governor, 6);
  for (let i = 0; i < 3; i += 1) await turn();
  assert.equal(await read('vigil_follow_up_limit'), [{ value: 4 }]);
  assert.equal(await read('vigil_follow_ups_waiting'), [{ value: 2 }]);
  for (const release of tasks.release) release();
  governor.stop();
});

test.run();
