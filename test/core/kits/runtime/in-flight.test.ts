import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { InFlight } from '../../../../core/kits/runtime/in-flight.js';

test('holds what was added, in order, until it is taken out; taking out twice does nothing', () => {
  const list = new InFlight<{ name: string }>();
  const [a, b, c] = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
  const doneA = list.add(a);
  const doneB = list.add(b);
  const doneC = list.add(c);
  assert.is(list.size, 3);
  assert.equal(list.snapshot(), [a, b, c]);
  doneB();
  doneB();
  assert.is(list.size, 2);
  assert.equal(list.snapshot(), [a, c]);
  doneA();
  assert.equal(list.snapshot(), [c]);
  doneC();
  assert.is(list.size, 0);
  assert.equal(list.snapshot(), []);
  const d = { name: 'd' };
  list.add(d);
  assert.equal(list.snapshot(), [d], 'an emptied list takes new entries');
});

test('the snapshot can be acted on while its entries take themselves out', () => {
  const list = new InFlight<{ stop: () => void }>();
  const stopped: number[] = [];
  for (let index = 0; index < 5; index++) {
    const entry = { stop: () => { stopped.push(index); done(); } };
    const done = list.add(entry);
  }
  for (const entry of list.snapshot()) entry.stop();
  assert.equal(stopped, [0, 1, 2, 3, 4]);
  assert.is(list.size, 0);
});

test('short-lived entries stay in the young generation beside a slow one (a Set ages them all)', async () => {
  // A process of its own with --expose-gc, so young collections can be forced between rounds.
  const module = new URL('../../../../core/kits/runtime/in-flight.js', import.meta.url).href;
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { InFlight } from ${JSON.stringify(module)};
    const oldGeneration = () => getHeapSpaceStatistics().filter((space) => !space.space_name.startsWith('new_')).reduce((sum, space) => sum + space.space_used_size, 0);
    function growth(add) {
      gc(); gc();
      const before = oldGeneration();
      // Mostly short calls, over before the next young collection, and now and then a slow one
      // that outlives three and is rightly promoted: it must not take the short ones with it.
      const slow = [];
      for (let round = 0; round < 300; round++) {
        slow.push(add({ payload: new Array(100).fill(-round) }));
        const batch = [];
        for (let index = 0; index < 100; index++) batch.push(add({ payload: new Array(100).fill(round) }));
        for (const done of batch) done();
        if (slow.length > 3) slow.shift()();
        gc({ type: 'minor' });
      }
      for (const done of slow) done();
      return (oldGeneration() - before) / 2 ** 20;
    }
    const list = new InFlight();
    const set = new Set();
    console.log(JSON.stringify({
      list: growth((value) => list.add(value)),
      set: growth((value) => { set.add(value); return () => set.delete(value); }),
    }));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script], { timeout: 60_000 });
  const grew = JSON.parse(stdout) as { list: number; set: number };
  console.log(`  old generation growth over 30,000 short entries: InFlight ${grew.list.toFixed(1)} MB, Set ${grew.set.toFixed(1)} MB`);
  // 300 slow entries of ~1 KB are promoted rightly; 30,000 short ones promoted would be ~20 MB.
  assert.ok(grew.list < 3, `the old generation grew by ${grew.list.toFixed(1)} MB`);
});

test.run();
