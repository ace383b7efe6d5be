import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mapLimit } from '../../../../core/kits/runtime/index.js';

test('mapLimit: the first failure starts nothing new and rejects once the calls in flight have settled', async () => {
  const started: number[] = [];
  const settled: number[] = [];
  const run = mapLimit([1, 2, 3, 4, 5, 6], 2, async (n) => {
    started.push(n);
    // Item 1 takes two turns, so item 2 fails while it is still in flight.
    for (let turn = 0; turn < (n === 1 ? 2 : 1); turn++) await new Promise((resolve) => setImmediate(resolve));
    settled.push(n);
    if (n === 2) throw new Error(`item ${n} failed`);
    return n;
  });
  await run.then(() => assert.unreachable('resolved'), (error: unknown) => assert.is((error as Error).message, 'item 2 failed'));
  assert.equal(started, [1, 2]);
  assert.equal(settled, [2, 1], 'the one in flight beside the failure settled before the pool rejected');
});

test('mapLimit: once the signal aborts nothing new starts, and the items not started have no result', async () => {
  const abort = new AbortController();
  const results = await mapLimit([1, 2, 3, 4], 1, async (n) => {
    if (n === 2) abort.abort();
    return n * 10;
  }, abort.signal);
  assert.equal(results.length, 4);
  assert.equal([results[0], results[1], 2 in results, 3 in results], [10, 20, false, false]);
});

test.run();
