import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger } from '../../../core/plugin-api.js';
import type { CancelToken } from '../../../plugins/monitor/cancellation.js';
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

test('nextDue: one interval after the previous due instant, on the phase', () => {
  const cadence = { interval: 1000, lifetime: 1000, maxBackoff: 8000 };
  const tolerance = 50;
  // Phase 250; the previous check was due at 10_250.
  assert.is(nextDue(10_250, 10_300, 0, 250, cadence, tolerance), 11_250, 'steady state: exactly one interval');
  assert.is(nextDue(10_250, 10_900, 0, 250, cadence, tolerance), 11_250, 'a check that started late (queued) keeps the cadence');
  assert.is(nextDue(10_250, 11_400, 0, 250, cadence, tolerance), 12_250, 'a check that outlived its interval: the next phase point after now');
  assert.is(nextDue(10_250, 10_300, 0, 250, { ...cadence, lifetime: 0 }, tolerance), 11_250, 'lifetime 0: still once per interval');
  assert.is(nextDue(10_250, 10_300, 0, 250, { ...cadence, lifetime: 1500 }, tolerance), 12_250, 'lifetime above the interval: every other phase point');
});

test('nextDue: an event-triggered check off the phase counts as a fresh result for lifetime', () => {
  const cadence = { interval: 1000, lifetime: 1000, maxBackoff: 8000 };
  // Asked for at 10_600: the result is 650 ms old at 11_250, younger than the lifetime, so 11_250 is skipped.
  assert.is(nextDue(10_600, 10_610, 0, 250, cadence, 50), 12_250);
  // Within the tolerance after a phase point: the next phase point still counts.
  assert.is(nextDue(10_290, 10_300, 0, 250, cadence, 50), 11_250);
  assert.is(nextDue(10_301, 10_310, 0, 250, cadence, 50), 12_250);
  // A lifetime shorter than the interval never skips a phase point.
  assert.is(nextDue(10_600, 10_610, 0, 250, { ...cadence, lifetime: 100 }, 50), 11_250);
});

test('nextDue: failures back off exponentially from the due instant, capped', () => {
  const cadence = { interval: 1000, lifetime: 1000, maxBackoff: 8000 };
  assert.is(nextDue(10_250, 10_300, 1, 250, cadence, 50), 11_250, 'one failure keeps the cadence');
  assert.is(nextDue(10_250, 10_300, 2, 250, cadence, 50), 12_250);
  assert.is(nextDue(10_250, 10_300, 3, 250, cadence, 50), 14_250);
  assert.is(nextDue(10_250, 10_300, 4, 250, cadence, 50), 18_250);
  assert.is(nextDue(10_250, 10_300, 10, 250, cadence, 50), 18_250, 'capped at maxBackoff');
  assert.is(nextDue(10_250, 10_300, 10, 250, { ...cadence, maxBackoff: 0 }, 50), 11_250, 'maxBackoff 0: no back-off');
});

/** Moves the clock to `time` and lets the scheduled checks (which resolve at once) complete. */
/** Moves the fake clock to `time` and runs what is due; with `limiter`, until it started every check waiting (it yields between a few). */
async function advance(clock: FakeClock, check: IntervalCheck, time: number, limiter?: ConcurrencyLimiter): Promise<void> {
  clock.time = time;
  check.tick();
  do await flush();
  while (limiter && limiter.waiting > 0);
}

test('IntervalCheck: now() checks at once, then exactly once per interval; errors back off, ok resets', async () => {
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
  const phase = phaseOf('a', 100);
  check.start();
  assert.is(clock.timers, 1, 'one timer for the whole schedule');
  check.now('a');
  await flush();
  assert.equal(checked, [1_000_000]);
  assert.is(check.stateOf('a')!.failures, 1);
  // One failure keeps the cadence: the first phase point a lifetime after the event-triggered check.
  const first = 1_000_100 + phase;
  assert.is(check.stateOf('a')!.due, first);
  // The slot before the due one: nothing happens (the wheel has 10 ms slots here).
  await advance(clock, check, Math.floor(first / 10) * 10 - 1);
  assert.is(checked.length, 1);
  await advance(clock, check, first);
  assert.equal(checked, [1_000_000, first]);
  assert.is(check.stateOf('a')!.failures, 2);
  assert.is(check.stateOf('a')!.due, first + 200, 'the second failure waits twice the interval');
  await advance(clock, check, first + 200);
  assert.is(check.stateOf('a')!.failures, 0, 'a success resets the back-off');
  assert.is(check.stateOf('a')!.due, first + 300);
  await advance(clock, check, first + 300);
  await advance(clock, check, first + 400);
  assert.equal(checked.slice(2), [first + 200, first + 300, first + 400], 'steady state: every interval on the phase');

  // An event off the phase (40 ms after the last check): the next phase point is skipped, the result is fresh.
  clock.time = first + 440;
  check.now('a');
  await flush();
  assert.is(check.stateOf('a')!.due, first + 600);
  await advance(clock, check, first + 500);
  assert.is(checked.length, 6, 'nothing at the skipped phase point');
  await advance(clock, check, first + 600);
  // An event within the tolerance (one slot) after a phase point does not move the cadence.
  clock.time = first + 605;
  check.now('a');
  await flush();
  assert.is(check.stateOf('a')!.due, first + 700);
  assert.equal(checked.slice(5), [first + 440, first + 600, first + 605]);
  check.stop();
  assert.is(clock.timers, 0);
  assert.is(check.size, 0);
});

test('IntervalCheck: a periodic check that waited for a slot keeps its cadence', async () => {
  const clock = new FakeClock();
  const checked: { id: string; at: number }[] = [];
  let release: (() => void) | undefined;
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 100, maxBackoff: 1000, clock, log: silent,
    limiter: new ConcurrencyLimiter(1),
    check: (id) => {
      checked.push({ id, at: clock.time });
      if (id !== 'hog') return Promise.resolve('ok');
      return new Promise<CheckOutcome>((resolve) => { release = () => resolve('ok'); });
    },
  });
  check.start();
  check.now('a');
  await flush();
  const due = check.stateOf('a')!.due!;
  // The only slot is taken when `a` comes due; it starts 60 ms late.
  clock.time = due - 50;
  check.now('hog');
  await flush();
  await advance(clock, check, due);
  assert.is(checked.length, 2, '`a` waits for the slot');
  clock.time = due + 60;
  release!();
  await flush();
  await flush();
  assert.equal(checked.map(({ id }) => id), ['a', 'hog', 'a']);
  assert.is(checked[2]!.at, due + 60);
  assert.is(check.stateOf('a')!.due, due + 100, 'one interval after it was due, not after it ran');
  check.stop();
});

test('IntervalCheck: in steady state every instance is checked once per interval, spread over it', async () => {
  const clock = new FakeClock();
  const interval = 1000;
  const granularity = 10; // interval / 200, at least 10 ms
  const ids = Array.from({ length: 2000 }, (_, i) => `instance-${i}`);
  const times = new Map<string, number[]>(ids.map((id) => [id, []]));
  let perTick = 0;
  let maxPerTick = 0;
  const limiter = new ConcurrencyLimiter(64);
  const check = new IntervalCheck({
    name: 'test', interval, lifetime: interval, maxBackoff: 8000, clock, log: silent, limiter,
    check: async (id) => {
      times.get(id)!.push(clock.time);
      perTick += 1;
      return 'ok';
    },
  });
  check.start();
  // All registered in the same instant: one event-triggered check each, started a few at a
  // time with the event loop turning in between (the limiter yields), the fake clock standing still.
  for (const id of ids) check.now(id);
  let turns = 0;
  while (limiter.waiting > 0 || turns === 0) {
    await flush();
    turns += 1;
  }
  assert.ok(turns > 1, 'the limiter let the event loop turn between starts');
  assert.ok(ids.every((id) => times.get(id)!.length === 1));
  const start = clock.time;
  for (let t = start + granularity; t <= start + 12 * interval; t += granularity) {
    perTick = 0;
    await advance(clock, check, t, limiter);
    if (t > start + 2 * interval) maxPerTick = Math.max(maxPerTick, perTick);
  }
  for (const id of ids) {
    const [event, firstPeriodic, ...rest] = times.get(id)!;
    assert.is(event, start);
    // The first periodic check is the first phase point at least lifetime − tolerance after the event one.
    assert.ok(firstPeriodic! - start >= interval - granularity && firstPeriodic! - start < 2 * interval, `${id}: first periodic check at +${firstPeriodic! - start}`);
    const gaps = [firstPeriodic!, ...rest].slice(1).map((at, i) => at - [firstPeriodic!, ...rest][i]!);
    assert.ok(gaps.length >= 9);
    assert.ok(gaps.every((gap) => gap === interval), `${id}: gaps ${gaps.join(',')}`);
  }
  // 2000 instances over 100 slots: 20 per slot on average; the phases keep every slot near that.
  assert.ok(maxPerTick <= 40, `at most twice the average in one slot (saw ${maxPerTick})`);
  check.stop();
});

test('IntervalCheck: an event during a running check runs it once more afterwards; remove aborts', async () => {
  const clock = new FakeClock();
  const releases: (() => void)[] = [];
  const tokens: CancelToken[] = [];
  let runs = 0;
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 0, maxBackoff: 100, clock, log: silent, limiter: new ConcurrencyLimiter(4),
    check: (_id, cancel) => {
      runs += 1;
      tokens.push(cancel);
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
  assert.not.ok(tokens[0]!.cancelled, 'a check that ended is not cancelled afterwards');
  assert.ok(tokens[1]!.cancelled, 'remove aborts the running check');
  releases.shift()!();
  await flush();
  assert.is(check.stateOf('a'), undefined, 'a late completion does not bring it back');
  check.remove('a');
  check.stop();
  check.now('b');
  await flush();
  assert.is(runs, 2, 'nothing runs after stop');
});

test('IntervalCheck: a check removed while it waits for a slot never starts; stop cancels the running ones and writes back nothing', async () => {
  const clock = new FakeClock();
  const tokens = new Map<string, CancelToken>();
  const releases: (() => void)[] = [];
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 0, maxBackoff: 100, clock, log: silent, limiter: new ConcurrencyLimiter(1),
    check: (id, cancel) => {
      tokens.set(id, cancel);
      return new Promise<CheckOutcome>((resolve) => releases.push(() => resolve('ok')));
    },
  });
  check.start();
  check.now('a');
  check.now('b');
  await flush();
  assert.equal([...tokens.keys()], ['a'], '`b` waits for the only slot');
  check.remove('b');
  releases.shift()!();
  await flush();
  await flush();
  assert.equal([...tokens.keys()], ['a'], 'the removed check was skipped when its slot came');
  check.now('c');
  await flush();
  assert.not.ok(tokens.get('c')!.cancelled);
  check.stop();
  assert.ok(tokens.get('c')!.cancelled, 'stop cancels the running check');
  releases.shift()!();
  await flush();
  assert.is(check.stateOf('c'), undefined);
  assert.is(check.size, 0);
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

test('IntervalCheck: adopt() waits for the next phase point, unless the node that had the instance died before its last one', async () => {
  const clock = new FakeClock();
  const checked: string[] = [];
  const check = new IntervalCheck({
    name: 'test', interval: 100, lifetime: 100, maxBackoff: 1000, clock, log: silent,
    limiter: new ConcurrencyLimiter(4),
    check: async (id) => {
      checked.push(`${id}@${clock.time}`);
      return 'ok';
    },
  });
  check.start();
  const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
  const last = (id: string) => 1_000_000 - 100 + ((phaseOf(id, 100) - 1_000_000 % 100 + 100) % 100 || 100);
  // Graceful: each first checked at its next phase point.
  check.adopt('a');
  await flush();
  assert.equal(checked, []);
  assert.is(check.stateOf('a')!.due, last('a') + 100);
  // The previous owner was last heard of 50 ms ago: what fell due since then is checked at once, the rest on the phase.
  for (const id of ids.slice(1)) check.adopt(id, 1_000_000 - 50);
  await flush();
  const missed = ids.slice(1).filter((id) => last(id) >= 1_000_000 - 50);
  const onPhase = ids.slice(1).filter((id) => last(id) < 1_000_000 - 50);
  assert.ok(missed.length > 0 && onPhase.length > 0, `both kinds among the ids: ${missed} / ${onPhase}`);
  assert.equal(checked, missed.map((id) => `${id}@1000000`));
  for (const id of [...missed, ...onPhase]) assert.is(check.stateOf(id)!.due, last(id) + 100, `${id} then keeps its phase`);
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
