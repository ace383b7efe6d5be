import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceNotification } from '../../../core/kits/notify-channel/index.js';
import { Batcher, type Entry } from '../../../plugins/notify/batcher.js';
import { Completion } from '../../../plugins/notify/completion.js';
import { eventually } from '../../support/http.js';

function entry(id: string): Entry {
  const notification = {
    kind: 'instance', id: `${id}-1`, type: 'STATUS_CHANGED', from: 'UP', to: 'DOWN', version: 1, timestamp: new Date().toISOString(), reminder: 0, coalesced: 0, baseUrl: '',
    instance: { id, name: 'orders', healthUrl: '', managementUrl: null, serviceUrl: null, source: null, metadata: {}, statusInfo: { status: 'DOWN', details: {} } },
  } satisfies InstanceNotification;
  return { notification, completion: new Completion() };
}

/** A batcher grouping over `groupWindowMs` whose channel holds each change it takes until the test lets go. */
function grouping(groupWindowMs: number): { batcher: Batcher; taken: Entry[][] } {
  const taken: Entry[][] = [];
  const batcher = new Batcher({
    groupWindowMs, selfPreservation: 0, stormWindowMs: 10_000, stormMin: 10, total: () => 2,
    dispatch: (entries) => {
      for (const each of entries) each.completion.hold();
      taken.push([...entries]);
    },
    summarize: () => undefined,
  });
  return { batcher, taken };
}

/** Whether `completion` is done, once the callbacks already due have run. */
async function isDone(completion: Completion): Promise<boolean> {
  return Promise.race([completion.done.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))]);
}

test('a change waiting in a group window keeps its outbox item pending until the batch is handed on to the channels', async () => {
  const { batcher, taken } = grouping(20);
  try {
    const changes = [entry('a'), entry('b')];
    for (const change of changes) {
      batcher.add(change);
      // The pipeline's own share, released once the change is handed to the batcher.
      change.completion.release();
    }
    assert.equal(await Promise.all(changes.map((change) => isDone(change.completion))), [false, false], 'pending while batched');
    await eventually(() => taken.length === 1, 'the batch handed on');
    assert.equal(await Promise.all(changes.map((change) => isDone(change.completion))), [false, false], 'pending while the channel works');
    for (const change of changes) change.completion.release();
    assert.equal(await Promise.all(changes.map((change) => isDone(change.completion))), [true, true]);
  } finally {
    batcher.stop();
  }
});

test('a batcher stopped with a change waiting never lets its outbox item go: a durable outbox hands it to another node', async () => {
  const { batcher, taken } = grouping(3_600_000);
  const change = entry('a');
  batcher.add(change);
  change.completion.release();
  batcher.stop();
  assert.is(await isDone(change.completion), false);
  assert.is(taken.length, 0);
});

test.run();
