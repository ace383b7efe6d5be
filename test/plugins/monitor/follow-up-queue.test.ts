import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger } from '../../../core/plugin-api.js';
import { ConcurrencyLimiter, STARTS_PER_TURN } from '../../../plugins/monitor/concurrency-limiter.js';
import { IntervalCheck, type Clock } from '../../../plugins/monitor/interval-check.js';

const silent: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => silent };
const turn = () => new Promise((resolve) => setImmediate(resolve));
const stillClock: Clock = { now: () => 1_000_000, every: () => () => undefined };

test('the limiter starts a few tasks, then lets the event loop serve I/O before it starts more', async () => {
  const limiter = new ConcurrencyLimiter(1000);
  let started = 0;
  const release: (() => void)[] = [];
  const tasks = Array.from({ length: 5 * STARTS_PER_TURN }, () => limiter.run(() => {
    started += 1;
    return new Promise<void>((resolve) => release.push(resolve));
  }));
  // Whatever was queued in one go, one turn of the event loop starts one batch.
  await Promise.resolve();
  await Promise.resolve();
  assert.is(started, STARTS_PER_TURN);
  assert.is(limiter.waiting, 4 * STARTS_PER_TURN);
  // One more batch per turn of the event loop, each after a pass over I/O (poll, then setImmediate).
  await turn();
  assert.is(started, 2 * STARTS_PER_TURN);
  await turn();
  assert.is(started, 3 * STARTS_PER_TURN);
  while (limiter.waiting > 0) await turn();
  assert.is(started, 5 * STARTS_PER_TURN);
  assert.is(limiter.active, 5 * STARTS_PER_TURN);
  for (const done of release) done();
  await Promise.all(tasks);
  assert.is(limiter.active, 0);
});

test('the follow-up queue is bounded by the instances: a storm of events queues one check per instance and kind', async () => {
  // One slot, taken by a check that does not end until told: everything else has to wait in line.
  const limiter = new ConcurrencyLimiter(1);
  const release: (() => void)[] = [];
  const checked: string[] = [];
  const check = new IntervalCheck({
    name: 'status', interval: 10_000, lifetime: 10_000, maxBackoff: 60_000, clock: stillClock, log: silent, limiter,
    check: (id) => {
      checked.push(id);
      return new Promise((resolve) => release.push(() => resolve('ok')));
    },
  });
  const ids = Array.from({ length: 100 }, (_, i) => `instance-${i}`);
  // Registered, updated, changed status, detected...: ten events per instance, all before any check ends.
  for (let round = 0; round < 10; round += 1) for (const id of ids) check.now(id);
  await turn();
  assert.is(limiter.active + limiter.waiting, ids.length, 'one check per instance, running or waiting, however many events came');
  // Each check that ends lets the next in line start; the repeated events make one more check each, not nine.
  while (checked.length < 2 * ids.length) {
    release.shift()?.();
    await turn();
    assert.ok(limiter.active + limiter.waiting <= ids.length);
  }
  release.shift()?.();
  await turn();
  assert.is(checked.length, 2 * ids.length);
  assert.is(limiter.active + limiter.waiting, 0);
  check.stop();
});

test('checks an event asks for take follow-up slots; the cadence and resumed instances take only the limiter\'s', async () => {
  const limiter = new ConcurrencyLimiter(100);
  const followUps = new ConcurrencyLimiter(2);
  const clock = { time: 1_000_000, now() { return this.time; }, every: () => () => undefined };
  const running = new Map<string, () => void>();
  const check = new IntervalCheck({
    name: 'status', interval: 10_000, lifetime: 10_000, maxBackoff: 60_000, clock, log: silent, limiter, followUps,
    check: (id) => new Promise((resolve) => running.set(id, () => {
      running.delete(id);
      resolve('ok');
    })),
  });
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await turn();
  };
  // A burst of first registrations: two checks at a time, the rest in line.
  for (let i = 0; i < 6; i += 1) check.now(`new-${i}`);
  await settle();
  assert.equal([...running.keys()], ['new-0', 'new-1']);
  assert.is(followUps.waiting, 4);
  // Instances held when monitoring starts are not news: they are checked now, past the follow-ups' line.
  check.resume('held-0');
  check.resume('held-1');
  check.resume('held-2');
  await settle();
  assert.equal([...running.keys()].sort(), ['held-0', 'held-1', 'held-2', 'new-0', 'new-1']);
  // And so are checks the cadence makes: the held ones come due again on their phase, within two intervals.
  for (const id of ['held-0', 'held-1', 'held-2']) running.get(id)!();
  await settle();
  assert.equal([...running.keys()].sort(), ['new-0', 'new-1']);
  clock.time += 20_000;
  check.tick();
  await settle();
  assert.equal([...running.keys()].sort(), ['held-0', 'held-1', 'held-2', 'new-0', 'new-1']);
  // Each follow-up that ends lets the next in line start; one dropped while it waits is never called.
  check.remove('new-3');
  running.get('new-0')!();
  await settle();
  assert.equal([...running.keys()].filter((id) => id.startsWith('new')).sort(), ['new-1', 'new-2']);
  running.get('new-1')!();
  running.get('new-2')!();
  await settle();
  assert.equal([...running.keys()].filter((id) => id.startsWith('new')).sort(), ['new-4', 'new-5']);
  assert.is(followUps.waiting, 0);
  check.stop();
});

test('a follow-up that hangs gives its slot back after the hold: the instances after it are still followed up', async () => {
  const limiter = new ConcurrencyLimiter(100);
  const followUps = new ConcurrencyLimiter(1);
  const started: string[] = [];
  const startedAt = new Map<string, number>();
  let finishHung: (() => void) | undefined;
  let nextStarted: (() => void) | undefined;
  const nextHasStarted = new Promise<void>((resolve) => {
    nextStarted = resolve;
  });
  const check = new IntervalCheck({
    name: 'status', interval: 10_000, lifetime: 10_000, maxBackoff: 60_000, clock: stillClock, log: silent, limiter, followUps, followUpHoldMs: 20,
    check: (id) => {
      started.push(id);
      startedAt.set(id, performance.now());
      if (id === 'next') nextStarted!();
      if (id !== 'hung') return Promise.resolve('ok');
      return new Promise((resolve) => {
        finishHung = () => resolve('ok');
      });
    },
  });
  check.now('hung');
  check.now('next');
  await turn();
  // On a loaded machine the hold may already be over here, so the order is asserted on when each
  // started: a timer never fires early, so the next one cannot start before the hold has passed.
  assert.equal(started[0], 'hung');
  // The hold is a real (short) timer, unref'd as it is in the daemon: something must keep this
  // process alive meanwhile. The next check starting is the event awaited.
  const alive = setInterval(() => undefined, 1000);
  await nextHasStarted;
  clearInterval(alive);
  await turn();
  assert.equal(started, ['hung', 'next']);
  assert.ok(startedAt.get('next')! - startedAt.get('hung')! >= 19, `one follow-up slot: the next one waits for the hold (it started ${startedAt.get('next')! - startedAt.get('hung')!} ms after)`);
  assert.ok(check.stateOf('hung')!.running, 'the hung check still runs, on the cap of all calls');
  assert.is(limiter.active, 1, 'the next one is done');
  finishHung!();
  await turn();
  assert.not.ok(check.stateOf('hung')!.running);
  check.stop();
});

test('a check waiting in line holds little: 20,000 follow-ups behind one slot, each a few hundred bytes, and all run once the slot frees', async () => {
  // A process of its own with --expose-gc, so the heap is measured after full collections.
  const module = (path: string) => JSON.stringify(new URL(path, import.meta.url).href);
  const script = `
    const { ConcurrencyLimiter } = await import(${module('../../../plugins/monitor/concurrency-limiter.js')});
    const { FollowUpGovernor } = await import(${module('../../../plugins/monitor/follow-up-governor.js')});
    const { IntervalCheck } = await import(${module('../../../plugins/monitor/interval-check.js')});
    const silent = { error() {}, warn() {}, info() {}, debug() {}, child() { return silent; } };
    const N = 20000;
    let release;
    const first = new Promise((resolve) => { release = resolve; });
    let checked = 0;
    const limiter = new ConcurrencyLimiter(1);
    const followUps = new FollowUpGovernor({ max: 1, load: () => 0 });
    const check = new IntervalCheck({
      name: 'status', limiter, followUps, interval: 3600000, lifetime: 3600000, maxBackoff: 3600000, log: silent,
      clock: { now: () => 1000000, every: () => () => undefined },
      check: (id) => { checked += 1; return id === 'first' ? first.then(() => 'ok') : Promise.resolve('ok'); },
    });
    check.now('first');
    await new Promise((resolve) => setImmediate(resolve));
    const ids = Array.from({ length: N }, (_, n) => 'instance-' + n);
    gc(); gc();
    const before = process.memoryUsage().heapUsed;
    for (const id of ids) check.now(id);
    await new Promise((resolve) => setImmediate(resolve));
    gc(); gc();
    const bytes = Math.round((process.memoryUsage().heapUsed - before) / N);
    const waiting = followUps.waiting;
    release();
    while (checked < N + 1) await new Promise((resolve) => setImmediate(resolve));
    followUps.stop();
    process.stdout.write(JSON.stringify({ bytes, waiting, checked, known: check.size }));
  `;
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { timeout: 60_000 });
  let measured: { bytes: number; waiting: number; checked: number; known: number };
  try {
    measured = JSON.parse(stdout) as typeof measured;
  } catch {
    throw new Error(`the measuring process printed ${JSON.stringify(stdout)}: ${stderr}`);
  }
  console.log(`  ${measured.bytes} bytes per check waiting in line (its instance's schedule entry included)`);
  assert.is(measured.waiting, 20_000);
  assert.is(measured.checked, 20_001);
  assert.is(measured.known, 20_001);
  // Each held two promises, their resolvers and half a dozen closures: ~1,600 bytes.
  assert.ok(measured.bytes < 800, `${measured.bytes} bytes per waiting check`);
});

test.run();
