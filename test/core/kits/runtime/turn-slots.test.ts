import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SLOTS_PER_TURN, turnSlot } from '../../../../core/kits/runtime/turn-slots.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

test('SLOTS_PER_TURN go on at the end of each pass (setImmediate), in order; none before it, even with room', async () => {
  await nextTurn(); // a turn of its own
  const order: number[] = [];
  const waits = Array.from({ length: 3 * SLOTS_PER_TURN }, (_, i) => turnSlot().then(() => order.push(i)));
  await Promise.resolve();
  assert.is(order.length, 0, 'none goes on before the pass ends');
  await nextTurn();
  assert.is(order.length, SLOTS_PER_TURN, 'the first ones at the end of the pass');
  await nextTurn();
  assert.is(order.length, 2 * SLOTS_PER_TURN, 'one more turn, one more batch');
  await Promise.all(waits);
  assert.equal(order, Array.from({ length: 3 * SLOTS_PER_TURN }, (_, i) => i));
});

test('a newcomer waits behind those already waiting, and a quiet turn has room again', async () => {
  await nextTurn();
  const order: string[] = [];
  const waits = Array.from({ length: SLOTS_PER_TURN + 1 }, (_, i) => turnSlot().then(() => order.push(`early ${i}`)));
  const late = turnSlot().then(() => order.push('late'));
  await Promise.all([...waits, late]);
  assert.is(order.at(-1), 'late');
  await nextTurn();
  await nextTurn();
  let went = false;
  const quiet = turnSlot().then(() => { went = true; });
  await nextTurn();
  assert.ok(went, 'after quiet turns the next one goes on at the end of its pass');
  await quiet;
});
test.run();
