import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SLOTS_PER_TURN, turnSlot } from '../../core/turn-slots.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('a turn lets SLOTS_PER_TURN through at once; the rest go on in later turns, in order', async () => {
  await nextTurn(); // a turn of its own, nothing granted yet
  const order: number[] = [];
  const waits = Array.from({ length: 3 * SLOTS_PER_TURN }, (_, i) => {
    const slot = turnSlot();
    if (slot === undefined) order.push(i);
    return slot?.then(() => order.push(i));
  });
  assert.is(order.length, SLOTS_PER_TURN, 'the first ones go on at once');
  assert.ok(waits.slice(SLOTS_PER_TURN).every((wait) => wait instanceof Promise));
  await nextTurn();
  assert.is(order.length, 2 * SLOTS_PER_TURN, 'one more turn, one more batch');
  await Promise.all(waits);
  assert.equal(order, Array.from({ length: 3 * SLOTS_PER_TURN }, (_, i) => i));
});

test('a newcomer waits behind those already waiting, and a quiet turn has room again', async () => {
  await nextTurn();
  const waits = Array.from({ length: SLOTS_PER_TURN + 1 }, () => turnSlot());
  const late = turnSlot();
  assert.ok(late instanceof Promise);
  await Promise.all([...waits, late]);
  await nextTurn();
  await nextTurn();
  assert.is(turnSlot(), undefined);
});
test.run();
