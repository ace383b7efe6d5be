import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SettleDecision, compactStep, fullCollection, readOldSpace, settleHeapAfterBursts, type Settled } from '../../bin/heap-settle.js';

const MB = 2 ** 20;
const options = { minSlack: 32 * MB, steadyGrowth: MB, steadySamples: 2, retrySamples: 3, maxRetrySamples: 6 };

test('no compaction while the old generation grows, however much of it is unused', () => {
  const decision = new SettleDecision(options);
  assert.is(decision.shouldCompact({ used: 60 * MB, committed: 100 * MB }), false);
  assert.is(decision.shouldCompact({ used: 70 * MB, committed: 120 * MB }), false);
  assert.is(decision.shouldCompact({ used: 60 * MB, committed: 140 * MB }), false);
});

test('compacts once the committed size held for two samples with much of it unused', () => {
  const decision = new SettleDecision(options);
  assert.is(decision.shouldCompact({ used: 60 * MB, committed: 140 * MB }), false);
  // A collection in between lowers what is used: still steady, since nothing more was committed.
  assert.is(decision.shouldCompact({ used: 80 * MB, committed: 140 * MB }), false);
  assert.is(decision.shouldCompact({ used: 62 * MB, committed: 140.5 * MB }), true);
});

test('a steady heap with little slack is left alone', () => {
  const decision = new SettleDecision(options);
  for (let i = 0; i < 5; i++) assert.is(decision.shouldCompact({ used: 80 * MB, committed: 100 * MB }), false);
});

test('after a compaction that gave back much, the next waits until the heap grew again by the slack', () => {
  const decision = new SettleDecision({ ...options, retrySamples: 100 });
  decision.shouldCompact({ used: 60 * MB, committed: 140 * MB });
  decision.shouldCompact({ used: 60 * MB, committed: 140 * MB });
  assert.is(decision.shouldCompact({ used: 60 * MB, committed: 140 * MB }), true);
  decision.compacted({ used: 60 * MB, committed: 140 * MB }, { used: 60 * MB, committed: 100 * MB });
  for (let i = 0; i < 10; i++) assert.is(decision.shouldCompact({ used: 60 * MB, committed: 100 * MB }), false, 'the same fragmentation again');
  // Another burst: committed grows by more than the slack, then holds.
  assert.is(decision.shouldCompact({ used: 70 * MB, committed: 150 * MB }), false);
  assert.is(decision.shouldCompact({ used: 70 * MB, committed: 150 * MB }), false);
  assert.is(decision.shouldCompact({ used: 70 * MB, committed: 150 * MB }), true);
});

test('a compaction that gave back little (inside a burst) is tried again later, less and less often', () => {
  const decision = new SettleDecision(options);
  const steadyHeap = { used: 60 * MB, committed: 140 * MB };
  const whenTried = (): number => {
    for (let sample = 1; sample <= 20; sample++) if (decision.shouldCompact(steadyHeap)) return sample;
    return -1;
  };
  assert.is(whenTried(), 3, 'first: after two steady samples');
  decision.compacted(steadyHeap, { used: 60 * MB, committed: 139 * MB });
  assert.is(whenTried(), 6, 'then after twice the retry');
  decision.compacted(steadyHeap, { used: 60 * MB, committed: 139 * MB });
  assert.is(whenTried(), 6, 'capped');
  // One that gave back much resets the wait.
  decision.compacted(steadyHeap, { used: 60 * MB, committed: 139 * MB });
  decision.shouldCompact({ used: 60 * MB, committed: 180 * MB });
  for (let i = 0; i < 3; i++) decision.shouldCompact({ used: 60 * MB, committed: 180 * MB });
  decision.compacted({ used: 60 * MB, committed: 180 * MB }, { used: 60 * MB, committed: 100 * MB });
  assert.is(whenTried(), 3, 'grew past what was left: as soon as it is steady again, without the wait');
});

/**
 * Leaves this process's old generation fragmented: many small objects promoted together, then
 * all but `keep` in six of them dropped and collected, so most pages stay committed with that
 * share of them live.
 */
function fragmentHeap(keep = 1): object[][] {
  const survivors = promoteAndDrop(keep);
  // One plain collection frees the dropped objects; the pages they shared with survivors stay committed.
  fullCollection();
  const { used, committed } = readOldSpace();
  assert.ok(committed - used > 32 * MB, `the heap is fragmented: ${Math.round(used / MB)} of ${Math.round(committed / MB)} MB used`);
  return survivors;
}

function promoteAndDrop(keep: number): object[][] {
  const kept: object[][] = [];
  for (let round = 0; round < 12; round++) {
    const all: object[] = [];
    for (let i = 0; i < 200_000; i++) all.push({ i, text: `instance-${i}` });
    kept.push(all);
  }
  return kept.map((all) => all.filter((_, i) => i % 6 < keep));
}

test('a compaction step gives back the pages a burst left half empty', () => {
  const survivors = fragmentHeap();
  const before = readOldSpace();
  let freed = 0;
  for (let i = 0; i < 10; i++) freed += compactStep();
  const after = readOldSpace();
  assert.ok(freed > (before.committed - before.used) / 2, `gave back ${Math.round(freed / MB)} MB`);
  assert.ok(after.committed < before.committed, 'committed less than before');
  assert.is(survivors.length, 12);
});

test('steps give back the pages a burst left more than half full, which a plain full collection keeps, a few MB each', () => {
  const survivors = fragmentHeap(4);
  fullCollection();
  const before = readOldSpace();
  assert.ok(before.committed - before.used > 32 * MB, `a plain full collection left ${Math.round((before.committed - before.used) / MB)} MB unused`);
  const steps: number[] = [];
  while (steps.length < 16 && steps.at(-1) !== 0) steps.push(compactStep());
  const after = readOldSpace();
  const freed = steps.reduce((sum, step) => sum + step, 0);
  const summary = `gave back ${steps.map((step) => Math.round(step / MB)).join(' + ')} MB of ${Math.round((before.committed - before.used) / MB)} MB unused`;
  assert.ok(freed > (before.committed - before.used) / 2, summary);
  assert.ok(after.committed - after.used < 16 * MB, `${summary}; left ${Math.round((after.committed - after.used) / MB)} MB unused`);
  // A step that moved everything at once would need room for all of it before the emptied pages go.
  assert.ok(Math.max(...steps) < 24 * MB, `each step moves a bounded amount: ${summary}`);
  assert.is(survivors.length, 12);
});

test('the sampler compacts a fragmented heap once it is steady, and reports it', async () => {
  const survivors = fragmentHeap();
  // The sampler's timers never hold the process open; this test's wait must.
  const holdOpen = setInterval(() => undefined, 1000);
  const settled = await new Promise<Settled>((resolve) => {
    const stop = settleHeapAfterBursts((result) => {
      stop();
      resolve(result);
    }, { everyMs: 20, decision: new SettleDecision({ ...options, minSlack: 8 * MB, steadySamples: 1 }) });
  }).finally(() => clearInterval(holdOpen));
  assert.ok(settled.steps >= 1);
  assert.ok(settled.after.committed < settled.before.committed, `${Math.round(settled.before.committed / MB)} → ${Math.round(settled.after.committed / MB)} MB`);
  assert.ok(settled.longestPauseMs > 0);
  assert.is(survivors.length, 12);
});

test.run();
