import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceEvent } from '../../../core/store/types.js';
import { HeldShare, type SharingReceiver } from '../../../plugins/cluster-redis/held-share.js';

/**
 * Which histories a cluster node holds as ownership moves: the reads and the feed race, and
 * whatever the order, each history ends up held whole, once, by the node it falls to.
 */

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };

function event(instance: string, version: number, seq: number): InstanceEvent {
  return { type: 'STATUS_CHANGED', instance, version, seq, timestamp: '2026-11-26T00:00:00.000Z', statusInfo: { status: 'UP', details: {} } } as InstanceEvent;
}

const seqs = (events: readonly InstanceEvent[] | undefined) => events?.map((e) => e.seq);

/** A share whose assignment and reads the test drives. */
function setUp(ids: readonly string[]) {
  let retried: () => void = () => undefined;
  const state = { mine: new Set<string>(), view: 'v0', retried: new Promise<void>((resolve) => { retried = resolve; }) };
  const reads: { ids: readonly string[]; resolve: (histories: InstanceEvent[][]) => void; reject: (error: Error) => void }[] = [];
  const released: string[] = [];
  const acquired = new Map<string, readonly InstanceEvent[]>();
  const receiver: SharingReceiver = {
    instanceIds: () => ids,
    released: (id) => void released.push(id),
    acquired: (histories) => {
      for (const [id, events] of histories) acquired.set(id, events);
    },
  };
  const share = new HeldShare({
    assigned: (id) => state.mine.has(id),
    view: () => state.view,
    read: (asked) => new Promise((resolve, reject) => reads.push({ ids: asked, resolve, reject })),
    retry: () => retried(),
    log: quiet,
  });
  /** Ownership moves: `mine` fall to this node now. */
  const move = (view: string, ...mine: string[]) => {
    state.view = view;
    state.mine = new Set(mine);
  };
  return { share, receiver, state, reads, released, acquired, move };
}

test('a history read while events go on: those delivered during the read are added once, those Redis had beyond what was delivered come from the feed', async () => {
  const { share, receiver, reads, acquired, move } = setUp(['a', 'b']);
  share.loaded({ held: [], view: 'v0' }, 11);
  move('v1', 'a', 'b');
  const done = share.rebalance(receiver);
  assert.is(reads.length, 1);
  assert.equal(reads[0]!.ids, ['a', 'b']);
  assert.not.ok(share.holds('a'), 'not held until read');
  // Delivered while Redis answers: a@3 (12) was appended before the read (Redis has it), a@4 (13) after.
  share.delivering(event('a', 3, 12));
  share.delivering(event('a', 4, 13));
  // Redis also holds b@2 (14), appended but not delivered yet: that one comes through the feed.
  reads[0]!.resolve([[event('a', 1, 5), event('a', 2, 8), event('a', 3, 12)], [event('b', 1, 9), event('b', 2, 14)]]);
  await done;
  assert.equal(seqs(acquired.get('a')), [5, 8, 12, 13]);
  assert.equal(seqs(acquired.get('b')), [9]);
  assert.ok(share.holds('a') && share.holds('b'));
  assert.is(share.size, 2);
});

test('a history no longer assigned is let go at once; the view it was decided from unchanged, nothing is done again', async () => {
  const { share, receiver, reads, released, move } = setUp(['a', 'b', 'c']);
  move('v1', 'a', 'b');
  share.loaded(share.select(['a', 'b', 'c']), 20);
  assert.ok(share.holds('a') && share.holds('b') && !share.holds('c'));
  move('v2', 'a');
  await share.rebalance(receiver);
  assert.equal(released, ['b']);
  assert.ok(share.holds('a') && !share.holds('b'));
  assert.is(reads.length, 0, 'nothing newly assigned: nothing read');
  await share.rebalance(receiver);
  assert.equal(released, ['b'], 'the same view: nothing let go twice');
});

test('a history that starts while this node is assigned it is held from its first event, and a read under way for it is dropped', async () => {
  const { share, receiver, reads, acquired, move } = setUp(['a']);
  share.loaded({ held: [], view: 'v0' }, 1);
  move('v1', 'a', 'n');
  const done = share.rebalance(receiver);
  // 'a' dropped (retention) and registered again while its old history was being read.
  share.dropped('a');
  share.delivering(event('a', 0, 2));
  share.delivering(event('n', 0, 3));
  reads[0]!.resolve([[event('a', 1, 1)]]);
  await done;
  assert.ok(share.holds('a') && share.holds('n'));
  assert.not.ok(acquired.has('a'), 'the old history is not handed over on top of the new one');
});

test('a failed read leaves the histories read from Redis, and they are read again on the next look', async () => {
  const { share, receiver, state, reads, acquired, move } = setUp(['a']);
  share.loaded({ held: [], view: 'v0' }, 5);
  move('v1', 'a');
  const failed = share.rebalance(receiver);
  reads[0]!.reject(new Error('Redis is unreachable'));
  await failed;
  assert.not.ok(share.holds('a'));
  // The share asks to look again a while later (the node's rebalance), and then reads them.
  await state.retried;
  const again = share.rebalance(receiver);
  assert.is(reads.length, 2, 'the same view is looked at again after a failure');
  reads[1]!.resolve([[event('a', 1, 4)]]);
  await again;
  assert.ok(share.holds('a'));
  assert.equal(seqs(acquired.get('a')), [4]);
  share.stop();
});

test('a load replaces everything: a read under way when it came hands nothing over', async () => {
  const { share, receiver, reads, acquired, move } = setUp(['a']);
  share.loaded({ held: [], view: 'v0' }, 5);
  move('v1', 'a');
  const done = share.rebalance(receiver);
  share.loaded({ held: ['a'], view: 'v1' }, 9);
  reads[0]!.resolve([[event('a', 1, 4)]]);
  await done;
  assert.is(acquired.size, 0);
  assert.ok(share.holds('a'), 'held by the load');
});

test.run();
