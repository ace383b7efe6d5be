import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RetirementQueue } from '../../core/store/retirement-queue.js';

/** A queue on a clock the test sets; `next()` resolves with the ids retired by the next firing. */
function queue() {
  let clock = 1_000_000;
  const retired: string[] = [];
  let notify: (() => void) | undefined;
  const q = new RetirementQueue((id) => {
    retired.push(id);
    notify?.();
  }, () => clock);
  return {
    q,
    retired,
    set: (ms: number) => {
      clock = ms;
    },
    at: (offset: number) => 1_000_000 + offset,
    // The queue's timer does not keep the process alive; this one does, and fails a queue that never fires.
    retiredOnce: () => new Promise<void>((resolve, reject) => {
      const failsafe = setTimeout(() => reject(new Error('nothing retired within 5 s')), 5000);
      notify = () => {
        clearTimeout(failsafe);
        resolve();
      };
    }),
  };
}

test('entries retire once due, in order, on one timer; what is not due waits', async () => {
  const { q, retired, set, at, retiredOnce } = queue();
  q.schedule('a', at(0));
  q.schedule('b', at(0));
  q.schedule('c', at(60_000));
  assert.is(q.size, 3);
  await retiredOnce();
  assert.equal(retired, ['a', 'b']);
  assert.ok(q.has('c'));
  set(at(1));
  q.schedule('d', at(1));
  assert.ok(q.has('d') && retired.length === 2, 'd waits behind c, due in a minute');
  q.schedule('c', at(0)); // c moves behind d: d comes first, and is due now
  await retiredOnce();
  assert.equal(retired, ['a', 'b', 'd', 'c']);
  assert.is(q.size, 0);
});

test('a cancelled entry never retires; scheduling again moves an entry to the end', async () => {
  const { q, retired, at, retiredOnce } = queue();
  q.schedule('a', at(0));
  q.schedule('b', at(0));
  q.schedule('c', at(0));
  q.cancel('b');
  q.schedule('a', at(0));
  assert.ok(!q.has('b'));
  await retiredOnce();
  assert.equal(retired, ['c', 'a']);
});

test('clear drops every entry and the timer', () => {
  const { q, at } = queue();
  q.schedule('a', at(0));
  q.clear();
  assert.is(q.size, 0);
  assert.ok(!q.has('a'));
});

test.run();
