import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_HEAP_GROWING_PERCENT, MALLOC_ARENA_MAX, SEMI_SPACE_FLAG, limitHeapGrowth, mallocArenaHint, semiSpaceHint } from '../../bin/heap-growth.js';
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

test('npm start and the systemd unit pass the young-generation cap and the malloc arena cap; without one the log says how to add it', () => {
  const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
  const scripts = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;
  assert.is(scripts.start, `MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX} node ${SEMI_SPACE_FLAG} bin/vigil.js`);
  assert.match(read('config/vigil.service'), `\nEnvironment=MALLOC_ARENA_MAX=${MALLOC_ARENA_MAX}\n`);
  assert.match(read('config/vigil.service'), `\nExecStart=/usr/bin/node ${SEMI_SPACE_FLAG} /opt/vigil/bin/vigil.js `);
  assert.is(semiSpaceHint([SEMI_SPACE_FLAG], undefined), undefined);
  assert.is(semiSpaceHint([], '--max-semi-space-size=8'), undefined);
  assert.match(semiSpaceHint(['--enable-source-maps'], undefined) ?? '', `start with \`node ${SEMI_SPACE_FLAG} bin/vigil.js\``);
});

test('the malloc arena hint: only on glibc, and only when MALLOC_ARENA_MAX is not set (to any value)', () => {
  const glibc = () => '2.36';
  assert.match(mallocArenaHint({}, glibc) ?? '', 'set MALLOC_ARENA_MAX=2 in the environment');
  assert.is(mallocArenaHint({ MALLOC_ARENA_MAX: '2' }, glibc), undefined);
  assert.is(mallocArenaHint({ MALLOC_ARENA_MAX: '8' }, glibc), undefined, 'the operator\'s own value');
  assert.is(mallocArenaHint({}, () => undefined), undefined, 'musl or macOS: nothing to set');
  // This machine, as the daemon asks it.
  const onGlibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime !== undefined;
  assert.is(mallocArenaHint({}) !== undefined, onGlibc);
});

test.run();
