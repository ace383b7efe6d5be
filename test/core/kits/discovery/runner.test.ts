import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { RunLog, eventsSince, refresh, registerOverHttp, registered, registrationAt } from '../../../support/discovery.js';
import { healthOf, scriptedSource, service, type Script } from './support.js';

// The discovery core through a real kernel, with a source whose answers the test scripts.
const SOURCE = 'discovery-script';

interface World {
  kernel: TestKernel;
  runs: RunLog;
  script: Script;
  changed(): void;
}

async function withSource(config: Record<string, unknown>, body: (world: World) => Promise<void>, initial = [service('orders', 'a'), service('orders', 'b')]): Promise<void> {
  const source = scriptedSource();
  source.script.entries = initial;
  const runs = new RunLog();
  const kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', source.plugin], config: { [SOURCE]: config } });
  try {
    await runs.applied(SOURCE);
    await body({ kernel, runs, script: source.script, changed: source.changed });
  } finally {
    await kernel.stop();
  }
}

test('the first run registers what the source lists, with source "discovery" and SBA URLs', () =>
  withSource({}, async ({ kernel, runs, script }) => {
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`, `orders ${healthOf('b')}`]);
    assert.equal(registrationAt(kernel, healthOf('a')), {
      name: 'orders', healthUrl: healthOf('a'), managementUrl: 'http://a:8080/actuator', serviceUrl: 'http://a:8080', source: 'discovery', metadata: {},
    });
    assert.equal(runs.runs[0], { source: SOURCE, reason: 'start', outcome: 'applied', listed: 2, diff: { added: 2, updated: 0, removed: 0, kept: 0, withheld: 0, untouched: 0 } });
    assert.equal(script.calls, ['start']);
    assert.ok(kernel.logs().some((line) => line.includes('info') && line.includes(`[${SOURCE}] run (start): 2 added, 0 updated, 0 removed, 0 kept`)), kernel.logs().join('\n'));
  }));

test('add, change, remove: one event each, in one run; an unchanged run records nothing and logs no info line', () =>
  withSource({}, async ({ kernel, runs, script, changed }) => {
    const seq = kernel.kernel.registry.lastSeq;
    script.entries = [service('orders', 'a', { zone: 'b' }), service('orders', 'c')];
    let mark = runs.mark();
    changed();
    const run = await runs.applied(SOURCE, mark);
    assert.equal(run.diff, { added: 1, updated: 1, removed: 1, kept: 0, withheld: 0, untouched: 0 });
    assert.equal(eventsSince(kernel, seq).sort(), ['DEREGISTERED orders', 'REGISTERED orders', 'REGISTRATION_UPDATED orders']);
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`, `orders ${healthOf('c')}`]);
    assert.equal(registrationAt(kernel, healthOf('a'))?.metadata, { zone: 'b' });

    const infoLines = kernel.logs().filter((line) => line.includes(`[${SOURCE}] run (`)).length;
    const before = kernel.kernel.registry.lastSeq;
    mark = runs.mark();
    changed();
    assert.equal((await runs.applied(SOURCE, mark)).diff, { added: 0, updated: 0, removed: 0, kept: 2, withheld: 0, untouched: 0 });
    assert.is(kernel.kernel.registry.lastSeq, before, 'nothing recorded');
    assert.is(kernel.logs().filter((line) => line.includes(`[${SOURCE}] run (`) && line.includes(' info ')).length, infoLines);
  }));

test('a failing source keeps the last good set, warns once, and says when it answers again', () =>
  withSource({}, async ({ kernel, runs, script, changed }) => {
    script.error = new Error('connection refused by the source');
    script.entries = [];
    let mark = runs.mark();
    changed();
    assert.equal(await runs.failed(SOURCE, mark), { source: SOURCE, reason: 'change', outcome: 'failed', listed: 0, error: 'connection refused by the source' });
    mark = runs.mark();
    changed();
    await runs.failed(SOURCE, mark);
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`, `orders ${healthOf('b')}`]);
    const warnings = kernel.logs().filter((line) => line.includes('warn') && line.includes('connection refused by the source'));
    assert.is(warnings.length, 1, warnings.join('\n'));
    assert.ok(warnings[0]!.includes('keeping the last good set, nothing removed'));

    script.error = undefined;
    script.entries = [service('orders', 'a'), service('orders', 'b')];
    mark = runs.mark();
    changed();
    await runs.applied(SOURCE, mark);
    assert.ok(kernel.logs().some((line) => line.includes('the source answers again')));
  }));

test('a source that does not answer within timeout fails the run; nothing is removed', () =>
  withSource({ timeout: '100ms' }, async ({ kernel, runs, script, changed }) => {
    script.hang = true;
    const mark = runs.mark();
    changed();
    const run = await runs.failed(SOURCE, mark);
    assert.is(run.error, 'the source did not answer within 100 ms');
    assert.is(registered(kernel).length, 2);
  }));

test('removal guard: more than max-removal waits for the next run to agree, then applies', () =>
  withSource({}, async ({ kernel, runs, script, changed }) => {
    script.entries = [service('orders', 'a')];
    let mark = runs.mark();
    changed();
    // 1 of 2 is 50%: not more than max-removal (50%), applied at once.
    assert.equal((await runs.applied(SOURCE, mark)).diff?.removed, 1);

    script.entries = [];
    mark = runs.mark();
    changed();
    assert.equal((await runs.applied(SOURCE, mark)).diff, { added: 0, updated: 0, removed: 0, kept: 0, withheld: 1, untouched: 0 });
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`]);
    assert.ok(kernel.logs().some((line) => line.includes('warn') && line.includes('would remove 1 of the 1 instances') && line.includes('max-removal (50%)')));

    mark = runs.mark();
    await refresh(kernel);
    assert.equal((await runs.applied(SOURCE, mark)).diff?.removed, 1, 'the next run agrees');
    assert.equal(registered(kernel), []);
  }, [service('orders', 'a'), service('orders', 'b')]));

test('a withheld removal logs what it would do and what it keeps: "would remove 20 of 20, keeping 20"', () =>
  withSource({ 'max-removal': '50%' }, async ({ kernel, runs, script, changed }) => {
    const all = Array.from({ length: 20 }, (_, i) => service('orders', `h${i}`));
    script.entries = [];
    let mark = runs.mark();
    changed();
    assert.equal((await runs.applied(SOURCE, mark)).diff, { added: 0, updated: 0, removed: 0, kept: 0, withheld: 20, untouched: 0 });
    const info = (text: string) => kernel.logs().filter((line) => line.includes(' info ') && line.includes(text));
    assert.is(info('run (change): would remove 20 of 20, keeping 20 (more than max-removal 50%: withheld until the next run agrees)').length, 1, kernel.logs().join('\n'));
    assert.equal(kernel.logs().filter((line) => line.includes('run (change)') && line.includes('kept')), [], 'no "0 kept" while all 20 are kept');

    script.entries = [...all.slice(0, 5), service('billing', 'new')];
    mark = runs.mark();
    changed();
    assert.equal((await runs.applied(SOURCE, mark)).diff, { added: 1, updated: 0, removed: 0, kept: 5, withheld: 15, untouched: 0 });
    assert.is(info('run (change): would remove 15 of 20, keeping 21 (more than max-removal 50%: withheld until the next run agrees); 1 added, 0 updated, 5 unchanged').length, 1, kernel.logs().join('\n'));
    assert.is(registered(kernel).length, 21);
  }, Array.from({ length: 20 }, (_, i) => service('orders', `h${i}`))));

test('a listed instance that cannot be registered is reported with its URL\'s password masked', () =>
  withSource({}, async ({ kernel, runs, script, changed }) => {
    script.entries = [service('orders', 'a'), { name: 'orders', uri: 'http://ops:RUNNER-SECRET@10.9.0.1:bad', metadata: {} }];
    const mark = runs.mark();
    changed();
    await runs.applied(SOURCE, mark);
    assert.ok(kernel.logs().some((line) => line.includes('skipped 1 listed instance(s)') && line.includes('orders at http://ops:******@10.9.0.1:bad')), kernel.logs().join('\n'));
    for (const line of kernel.logs()) assert.not.ok(line.includes('RUNNER-SECRET'), line);
  }));

test('removal guard: a next run that disagrees cancels the pending removal; a watch-triggered run never confirms', () =>
  withSource({ 'max-removal': '25%' }, async ({ kernel, runs, script, changed }) => {
    const all = ['a', 'b', 'c', 'd'].map((host) => service('orders', host));
    const step = async (entries: typeof all, how: 'change' | 'refresh' = 'change') => {
      script.entries = entries;
      const mark = runs.mark();
      if (how === 'change') changed();
      else await refresh(kernel);
      return (await runs.applied(SOURCE, mark)).diff!;
    };
    assert.is((await step(all.slice(0, 2))).withheld, 2);
    assert.is((await step(all)).withheld, 0, 'the source is whole again');
    assert.is((await step(all.slice(0, 2), 'refresh')).withheld, 2, 'the earlier removal is not counted as agreement');
    assert.is((await step(all.slice(0, 1))).withheld, 3, 'a different removal is a new one');
    assert.is((await step(all.slice(0, 1))).withheld, 3, 'a run a watch triggered does not confirm');
    assert.is((await step(all.slice(0, 1), 'refresh')).removed, 3);
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`]);
    assert.is(kernel.logs().filter((line) => line.includes('would remove 3 of the 4')).length, 1, 'one warning per withheld removal');
  }, ['a', 'b', 'c', 'd'].map((host) => service('orders', host))));

test('max-removal 100% never waits', () =>
  withSource({ 'max-removal': 1 }, async ({ kernel, runs, script, changed }) => {
    script.entries = [];
    const mark = runs.mark();
    changed();
    assert.is((await runs.applied(SOURCE, mark)).diff?.removed, 2);
    assert.equal(registered(kernel), []);
  }));

test('instances registered over HTTP are never touched, also when they take over a listed one', () =>
  withSource({}, async ({ kernel, runs, script, changed }) => {
    await registerOverHttp(kernel, { name: 'manual', healthUrl: 'http://m:1/health' });
    // b is re-registered by its own client: from now on it belongs to the HTTP API.
    await registerOverHttp(kernel, { name: 'orders', healthUrl: healthOf('b') });
    script.entries = [service('orders', 'a', { changed: 'yes' }), service('orders', 'b', { changed: 'yes' })];
    let mark = runs.mark();
    changed();
    assert.equal((await runs.applied(SOURCE, mark)).diff, { added: 0, updated: 1, removed: 0, kept: 0, withheld: 0, untouched: 1 });
    assert.is(registrationAt(kernel, healthOf('b'))?.source, 'http-api');
    assert.equal(registrationAt(kernel, healthOf('b'))?.metadata, {});

    script.entries = [];
    mark = runs.mark();
    await refresh(kernel);
    await runs.applied(SOURCE, mark);
    mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.removed, 1);
    assert.equal(registered(kernel), ['manual http://m:1/health', `orders ${healthOf('b')}`]);
  }));

test('filters: services, ignored-services, instances-metadata, ignored-instances-metadata; bad entries skipped with a warning', () =>
  withSource({
    services: ['ord*', 'billing'], 'ignored-services': ['orders-canary'],
    'instances-metadata': { monitoring: 'true' }, 'ignored-instances-metadata': { zone: 'lab' },
  }, async ({ kernel }) => {
    assert.equal(registered(kernel), [`ORDERS ${healthOf('o1')}`, `billing ${healthOf('b1')}`]);
    assert.ok(kernel.logs().some((line) => line.includes('warn') && line.includes('skipped 1 listed instance(s)') && line.includes('orders at ftp://x')), kernel.logs().join('\n'));
  }, [
    service('ORDERS', 'o1', { monitoring: 'true' }),
    service('orders-canary', 'o2', { monitoring: 'true' }),
    service('orders', 'o3', { monitoring: 'false' }),
    service('orders', 'o4', { monitoring: 'true', zone: 'lab' }),
    service('billing', 'b1', { monitoring: 'true' }),
    service('stock', 's1', { monitoring: 'true' }),
    { name: 'orders', uri: 'ftp://x', metadata: { monitoring: 'true' } },
  ]));

test('POST /applications runs the source now, reading the origin (reason "refresh")', () =>
  withSource({}, async ({ kernel, runs, script }) => {
    script.entries = [service('orders', 'a'), service('orders', 'b'), service('orders', 'c')];
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.applied(SOURCE, mark);
    assert.is(run.reason, 'refresh');
    assert.is(run.diff?.added, 1);
    assert.equal(script.calls, ['start', 'refresh']);
  }));

test('two sources: each removes only what it registered; one listed by both belongs to one of them', async () => {
  const first = scriptedSource('discovery-one');
  const second = scriptedSource('discovery-two');
  first.script.entries = [service('orders', 'a'), service('orders', 'shared')];
  second.script.entries = [service('billing', 'b'), service('orders', 'shared')];
  const runs = new RunLog();
  const kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', first.plugin, second.plugin] });
  try {
    await runs.applied('discovery-one');
    await runs.applied('discovery-two');
    // Both first runs ran at once and may both have claimed `shared`: the name that sorts first keeps it.
    let mark = runs.mark();
    second.changed();
    assert.equal((await runs.applied('discovery-two', mark)).diff, { added: 0, updated: 0, removed: 0, kept: 1, withheld: 0, untouched: 1 });
    const state = kernel.kernel.registry;
    assert.equal(registered(kernel), [`billing ${healthOf('b')}`, `orders ${healthOf('a')}`, `orders ${healthOf('shared')}`]);

    second.script.entries = [];
    mark = runs.mark();
    second.changed();
    await runs.applied('discovery-two', mark);
    mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied('discovery-two', mark)).diff?.removed, 1, 'only billing');
    assert.ok(state.list().some((instance) => instance.registration?.healthUrl === healthOf('shared')));

    // The first lets go of it; the second lists it again and now takes it.
    first.script.entries = [service('orders', 'a')];
    second.script.entries = [service('orders', 'shared')];
    mark = runs.mark();
    first.changed();
    assert.is((await runs.applied('discovery-one', mark)).diff?.removed, 1);
    mark = runs.mark();
    second.changed();
    assert.is((await runs.applied('discovery-two', mark)).diff?.added, 1);
  } finally {
    await kernel.stop();
  }
});

test.run();
