import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Fifo } from '../../core/fifo.js';

test('first in, first out, across compactions of a long line', () => {
  const line = new Fifo<number>();
  assert.is(line.shift(), undefined);
  for (let i = 0; i < 5000; i += 1) line.push(i);
  const out: number[] = [];
  for (let i = 0; i < 3000; i += 1) out.push(line.shift()!);
  for (let i = 5000; i < 6000; i += 1) line.push(i);
  assert.is(line.size, 3000);
  while (line.size > 0) out.push(line.shift()!);
  assert.equal(out, Array.from({ length: 6000 }, (_, i) => i));
  assert.is(line.shift(), undefined);
  line.push(7);
  assert.is(line.size, 1);
  assert.is(line.shift(), 7);
});

test('clear empties the line, part-shifted or not', () => {
  const line = new Fifo<number>();
  for (let i = 0; i < 10; i += 1) line.push(i);
  line.shift();
  line.clear();
  assert.is(line.size, 0);
  assert.is(line.shift(), undefined);
  line.push(1);
  assert.is(line.shift(), 1);
});

test.run();
