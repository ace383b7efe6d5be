import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RecentEvents } from '../../core/store/recent-events.js';
import type { InstanceEvent } from '../../core/store/types.js';

/** A cluster node's window of the newest events, against the plainest model of it: a list cut at the front. */

type Op = { kind: 'add'; instance: string } | { kind: 'drop'; instance: string } | { kind: 'reset' };

const instances = ['a', 'b', 'c', 'd'];
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom(...instances).map((instance) => ({ kind: 'add' as const, instance })) },
  { weight: 1, arbitrary: fc.constantFrom(...instances).map((instance) => ({ kind: 'drop' as const, instance })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reset' as const }) },
);

function event(instance: string, seq: number): InstanceEvent {
  return { type: 'STATUS_CHANGED', instance, version: seq, seq, timestamp: '2026-11-26T00:00:00.000Z', statusInfo: { status: 'UP', details: {} } } as InstanceEvent;
}

test('the window holds the newest events, one instance\'s read on their own, dropped ones gone, complete after the oldest it let go', () => {
  fc.assert(fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (capacity, ops) => {
    const window = new RecentEvents(capacity);
    // The model: entries in seq order, a dropped event standing as its seq until it is pushed out.
    let model: (InstanceEvent | number)[] = [];
    let complete = 0;
    let seq = 10;
    for (const step of ops) {
      if (step.kind === 'add') {
        const added = event(step.instance, (seq += 1));
        window.add(added);
        model.push(added);
        if (model.length > capacity) {
          const gone = model.shift()!;
          complete = typeof gone === 'number' ? gone : gone.seq;
        }
      } else if (step.kind === 'drop') {
        window.drop(step.instance);
        model = model.map((entry) => (typeof entry !== 'number' && entry.instance === step.instance ? entry.seq : entry));
      } else {
        window.reset(seq);
        model = [];
        complete = seq;
      }
      const events = model.filter((entry): entry is InstanceEvent => typeof entry !== 'number');
      assert.is(window.complete, complete);
      for (const after of [0, seq - 3, seq - 1, seq]) assert.equal(window.since(after), events.filter((e) => e.seq > after));
      for (const id of instances) assert.equal(window.ofInstance(id), events.filter((e) => e.instance === id));
    }
  }), { numRuns: 300 });
});

test.run();
