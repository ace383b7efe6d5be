import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_HEAP_GROWING_PERCENT, limitHeapGrowth } from '../../core/heap-growth.js';

test('limits heap growth when the operator set no heap flag', () => {
  assert.is(limitHeapGrowth([], undefined), `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
  assert.is(limitHeapGrowth(['--enable-source-maps'], '--trace-warnings'), `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
});

test('leaves the heap to the operator who sized it, on the command line or in NODE_OPTIONS', () => {
  assert.is(limitHeapGrowth(['--max-old-space-size=2048'], undefined), undefined);
  assert.is(limitHeapGrowth([], '--heap-growing-percent=200'), undefined);
  assert.is(limitHeapGrowth([], '--trace-gc --max-heap-size=512'), undefined);
  assert.is(limitHeapGrowth(['--max-semi-space-size=64'], ''), undefined);
});

test.run();
