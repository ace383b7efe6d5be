import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger } from '../../../core/plugin-api.js';
import type { CheckOutcome } from '../../../plugins/monitor/check-outcome.js';
import { ConcurrencyLimiter } from '../../../plugins/monitor/concurrency-limiter.js';
import { FlapDamper } from '../../../plugins/monitor/flap-damper.js';
import { IntervalCheck, systemClock, type Clock } from '../../../plugins/monitor/interval-check.js';
import { backoffOf, nextDue, phaseOf } from '../../../plugins/monitor/schedule-math.js';

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => silent };

/** A clock that moves only when told; `every` just remembers that a timer was asked for. */
class FakeClock implements Clock {
  time = 1_000_000;
  timers = 0;
  now(): number {
    return this.time;
  }
  every(): () => void {
    this.timers += 1;
    return () => {
      this.timers -= 1;
    };
  }
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

test('phaseOf: stable, inside the interval, spread', () => {
  assert.is(phaseOf('4b2a1f0c9d8e', 1000), phaseOf('4b2a1f0c9d8e', 1000));
  const phases = new Set<number>();
  for (let i = 0; i < 1000; i += 1) {
    const phase = phaseOf(`instance-${i}`, 10_000);
    assert.ok(phase >= 0 && phase < 10_000);
    phases.add(Math.floor(phase / 1000));
  }
  assert.is(phases.size, 10, 'every tenth of the interval gets instances');
  assert.is(phaseOf('x', 0), 0);
});

test('backoffOf: none without failures, doubling, capped', () => {
  assert.is(backoffOf(0, 100, 1000), 0);
  assert.is(backoffOf(1, 100, 1000), 100);
  assert.is(backoffOf(2, 100, 1000), 200);
  assert.is(backoffOf(4, 100, 1000), 800);
  assert.is(backoffOf(5, 100, 1000), 1000);
  assert.is(backoffOf(500, 100, 1000), 1000);
});

test('nextDue: on the phase, at least lifetime (or backoff) after completion', () => {
  const cadence = { interval: 1000, lifetime: 1000, maxBackoff: 8000 };
  // phase 250: completed at 10_100 → earliest 11_100 → next phase point 11_250.
  assert.is(nextDue(10_100, 0, 250, cadence), 11_250);
  assert.is(nextDue(10_250, 0, 250, cadence), 11_250);
  // lifetime shorter than the interval: the next phase point after the lifetime.
  assert.is(nextDue(10_100, 0, 250, { ...cadence, lifetime: 100 }), 10_250);
  // three failures: 4 s back-off.
  assert.is(nextDue(10_100, 3, 250, cadence), 14_250);
  assert.is(nextDue(10_100, 10, 250, cadence), 18_250);
});

test('IntervalCheck: now() checks at once, then on the cadence; ok resets, errors back off', async () => {
  const clock = new FakeClock();
  const outcomes: CheckOutcome[] = ['error', 'error', 'ok'];
  const checked: number[] = [];
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 100, maxBackoff: 1000, clock, log: silent,
    limiter: new ConcurrencyLimiter(4),
    check: async () => {
      checked.push(clock.time);
      return outcomes.shift() ?? 'ok';
    },
  });
  check.start();
  assert.is(clock.timers, 1, 'one timer for the whole schedule');
  check.now('a');
  await flush();
  assert.equal(checked, [1_000_000]);
  const first = check.stateOf('a')!;
  assert.is(first.failures, 1);
  assert.ok(first.due! >= 1_000_100 && first.due! < 1_000_200, `due ${first.due}`);
  // Not yet due: nothing happens.
  clock.time = first.due! - 20;
  check.tick();
  await flush();
  assert.is(checked.length, 1);
  clock.time = first.due!;
  check.tick();
  await flush();
  assert.is(checked.length, 2);
  const second = check.stateOf('a')!;
  assert.is(second.failures, 2);
  assert.ok(second.due! - first.due! >= 200, 'the second failure waits twice the interval');
  clock.time = second.due!;
  check.tick();
  await flush();
  assert.is(check.stateOf('a')!.failures, 0, 'a success resets the back-off');
  check.stop();
  assert.is(clock.timers, 0);
  assert.is(check.size, 0);
});

test('IntervalCheck: an event during a running check runs it once more afterwards; remove aborts', async () => {
  const clock = new FakeClock();
  const releases: (() => void)[] = [];
  const signals: AbortSignal[] = [];
  let runs = 0;
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 0, maxBackoff: 100, clock, log: silent, limiter: new ConcurrencyLimiter(4),
    check: (_id, signal) => {
      runs += 1;
      signals.push(signal);
      return new Promise<CheckOutcome>((resolve) => releases.push(() => resolve('ok')));
    },
  });
  check.start();
  check.now('a');
  await flush();
  check.now('a');
  check.now('a');
  await flush();
  assert.is(runs, 1, 'never two checks of one instance at once');
  assert.ok(check.stateOf('a')!.running);
  releases.shift()!();
  await flush();
  assert.is(runs, 2, 'the coalesced event ran once more');
  check.remove('a');
  assert.ok(signals[1]!.aborted, 'remove aborts the running check');
  releases.shift()!();
  await flush();
  assert.is(check.stateOf('a'), undefined, 'a late completion does not bring it back');
  check.remove('a');
  check.stop();
  check.now('b');
  await flush();
  assert.is(runs, 2, 'nothing runs after stop');
});

test('IntervalCheck: gone forgets, a throwing check is logged and rescheduled, stalls catch up', async () => {
  const clock = new FakeClock();
  const errors: string[] = [];
  const log: Logger = { ...silent, error: (message) => errors.push(message) };
  const outcomes = new Map<string, () => Promise<CheckOutcome>>([
    ['gone', async () => 'gone'],
    ['broken', async () => { throw new Error('bug'); }],
    ['fine', async () => 'skipped'],
  ]);
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 50, maxBackoff: 400, clock, log, limiter: new ConcurrencyLimiter(1),
    check: (id) => outcomes.get(id)!(),
  });
  check.start();
  for (const id of outcomes.keys()) check.now(id);
  await flush();
  await flush();
  assert.is(check.stateOf('gone'), undefined);
  assert.is(check.stateOf('broken')!.failures, 1);
  assert.match(errors[0]!, /broken failed: bug/);
  assert.is(check.stateOf('fine')!.failures, 0);
  // A long stall (an hour): the tick looks at the buckets, not at every empty slot.
  clock.time += 3_600_000;
  check.tick();
  await flush();
  await flush();
  assert.is(check.stateOf('broken')!.failures, 2);
  check.stop();
});

test('systemClock: real timer, cancellable', async () => {
  let calls = 0;
  const cancel = systemClock.every(5, () => { calls += 1; });
  await new Promise((resolve) => setTimeout(resolve, 40));
  cancel();
  const seen = calls;
  assert.ok(seen > 0);
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.is(calls, seen);
  assert.ok(Math.abs(systemClock.now() - Date.now()) < 50);
});

test('ConcurrencyLimiter: caps, FIFO, frees slots on failure, starts asynchronously', async () => {
  const limiter = new ConcurrencyLimiter(2);
  const order: number[] = [];
  const releases: (() => void)[] = [];
  const task = (n: number) => () => new Promise<number>((resolve) => {
    order.push(n);
    releases.push(() => resolve(n));
  });
  const results = [1, 2, 3, 4].map((n) => limiter.run(task(n)));
  assert.equal(order, [], 'nothing runs inside the caller');
  await flush();
  assert.equal(order, [1, 2]);
  assert.is(limiter.active, 2);
  assert.is(limiter.waiting, 2);
  releases.shift()!();
  await flush();
  assert.equal(order, [1, 2, 3]);
  releases.shift()!();
  await flush();
  assert.equal(order, [1, 2, 3, 4]);
  releases.shift()!();
  releases.shift()!();
  assert.equal(await Promise.all(results), [1, 2, 3, 4]);
  await limiter.run(() => Promise.reject(new Error('no'))).then(() => assert.unreachable(), (error: Error) => assert.is(error.message, 'no'));
  const thrown = limiter.run(() => { throw new Error('sync'); });
  await thrown.then(() => assert.unreachable(), (error: Error) => assert.is(error.message, 'sync'));
  assert.is(limiter.active, 0);
});

test('ConcurrencyLimiter: a long queue drains (compaction)', async () => {
  const limiter = new ConcurrencyLimiter(3);
  const all = Array.from({ length: 5000 }, (_, i) => limiter.run(async () => i));
  const values = await Promise.all(all);
  assert.is(values[4999], 4999);
  assert.is(limiter.waiting, 0);
});

test('FlapDamper: thresholds of 1 behave like SBA', () => {
  const damper = new FlapDamper(1, 1);
  assert.ok(damper.admit('a', 'UNKNOWN', 'DOWN'));
  assert.ok(damper.admit('a', 'UP', 'DOWN'));
  assert.ok(damper.admit('a', 'DOWN', 'UP'));
});

test('FlapDamper: N failures before DOWN, M successes before UP, streaks reset', () => {
  const damper = new FlapDamper(2, 3);
  assert.ok(damper.admit('a', 'UNKNOWN', 'UP'), 'the first result records at once');
  assert.not.ok(damper.admit('a', 'UP', 'OFFLINE'));
  assert.ok(damper.admit('a', 'UP', 'UP'), 'an UP in between resets the streak');
  assert.not.ok(damper.admit('a', 'UP', 'DOWN'));
  assert.ok(damper.admit('a', 'UP', 'OFFLINE'), 'two non-UP results in a row (any non-UP)');
  assert.ok(damper.admit('a', 'OFFLINE', 'DOWN'), 'non-UP to non-UP passes');
  assert.not.ok(damper.admit('a', 'DOWN', 'UP'));
  assert.not.ok(damper.admit('a', 'DOWN', 'UP'));
  assert.ok(damper.admit('a', 'DOWN', 'UP'));
  assert.not.ok(damper.admit('b', 'UP', 'DOWN'));
  damper.forget('b');
  assert.not.ok(damper.admit('b', 'UP', 'DOWN'), 'forget drops the streak');
});

test.run();
