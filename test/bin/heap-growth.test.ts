import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_HEAP_GROWING_PERCENT, SEMI_SPACE_FLAG, limitHeapGrowth, semiSpaceHint } from '../../bin/heap-growth.js';
import { repoRoot } from '../support/paths.js';

test('limits heap growth when the operator set no heap flag', () => {
  assert.is(limitHeapGrowth([], undefined), `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
  assert.is(limitHeapGrowth(['--enable-source-maps'], '--trace-warnings'), `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
});

test('leaves the heap to the operator who sized it, on the command line or in NODE_OPTIONS', () => {
  assert.is(limitHeapGrowth(['--max-old-space-size=2048'], undefined), undefined);
  assert.is(limitHeapGrowth([], '--heap-growing-percent=200'), undefined);
  assert.is(limitHeapGrowth([], '--trace-gc --max-heap-size=512'), undefined);
});

test('a young-generation cap (the shipped start commands pass one) does not turn the growth limit off', () => {
  assert.is(limitHeapGrowth(['--max-semi-space-size=4'], ''), `--heap-growing-percent=${DEFAULT_HEAP_GROWING_PERCENT}`);
});

test('npm start and the systemd unit pass the young-generation cap; without one the log says how to add it', () => {
  const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  assert.is(scripts.start, `node ${SEMI_SPACE_FLAG} bin/vigil.js`);
  assert.match(read('config/vigil.service'), `\nExecStart=/usr/bin/node ${SEMI_SPACE_FLAG} /opt/vigil/bin/vigil.js `);
  assert.is(semiSpaceHint([SEMI_SPACE_FLAG], undefined), undefined);
  assert.is(semiSpaceHint([], '--max-semi-space-size=8'), undefined);
  assert.match(semiSpaceHint(['--enable-source-maps'], undefined) ?? '', `start with \`node ${SEMI_SPACE_FLAG} bin/vigil.js\``);
});

test.run();
