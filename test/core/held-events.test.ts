import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VersionConflictError, type EventLog, type NewEvent } from '../../core/contract/event-log.js';
import { EventBus } from '../../core/bus.js';
import { HeldEvents, compactHistory } from '../../core/store/held-events.js';
import { retiredDetails } from '../../core/store/sealed-history.js';
import { MemoryEventLog } from '../../core/store/memory-event-log.js';
import { InstanceRegistry } from '../../core/store/registry.js';
import { runSeqBase } from '../../core/store/seq-base.js';
import type { EventDraft, InstanceEvent } from '../../core/store/types.js';

const registration = { name: 'a', healthUrl: 'http://h/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} };
const status = (s: string): EventDraft => ({ type: 'STATUS_CHANGED', statusInfo: { status: s, details: {} } });
const info: EventDraft = { type: 'INFO_CHANGED', info: {} };

let seq = 0;
function event(instance: string, version: number, draft: EventDraft): InstanceEvent {
  return { ...draft, instance, version, timestamp: new Date(0).toISOString(), seq: ++seq } as InstanceEvent;
}

test('held events: per-instance order and one global list in seq order', () => {
  const held = new HeldEvents(100);
  const [a0, b0, a1] = [event('a', 0, { type: 'REGISTERED', registration }), event('b', 0, { type: 'REGISTERED', registration }), event('a', 1, status('UP'))];
  for (const e of [a0, b0, a1]) held.add(e);
  assert.equal(held.all(), [a0, b0, a1]);
  assert.equal(held.ofInstance('a'), [a0, a1]);
  assert.equal(held.since(a0.seq), [b0, a1]);
  assert.is(held.size, 3);
});

test('compaction keeps the newest event of each kind (SBA example with limit 4)', () => {
  const held = new HeldEvents(4);
  for (const e of [event('a', 0, { type: 'REGISTERED', registration }), event('a', 1, info), event('a', 3, status('DOWN')), event('a', 4, status('UP')),
    event('a', 5, info), event('a', 6, status('DOWN'))]) held.add(e);
  assert.equal(held.ofInstance('a').map((e) => `${e.type}${e.version}`), ['REGISTERED0', 'STATUS_CHANGED4', 'INFO_CHANGED5', 'STATUS_CHANGED6']);
  assert.equal(held.all().map((e) => e.version), [0, 4, 5, 6]);
  assert.is(held.size, 4);
});

test('compaction drops only the oldest events beyond the limit', () => {
  const held = new HeldEvents(10);
  held.add(event('a', 0, { type: 'REGISTERED', registration }));
  for (let v = 1; v <= 30; v += 1) held.add(event('a', v, status(v % 2 ? 'UP' : 'DOWN')));
  assert.equal(held.ofInstance('a').map((e) => e.version), [0, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
});

test('the cap is hard: statuses that never repeat, and more kinds than the cap, still keep at most the limit', () => {
  const held = new HeldEvents(10);
  held.add(event('a', 0, { type: 'REGISTERED', registration }));
  for (let v = 1; v <= 500; v += 1) held.add(event('a', v, status(`S${v}`)));
  assert.equal(held.ofInstance('a').map((e) => e.version), [0, 492, 493, 494, 495, 496, 497, 498, 499, 500]);
  let v = 0;
  const crowded = [event('b', v++, { type: 'REGISTERED', registration })];
  for (const s of ['DOWN', 'OUT_OF_SERVICE', 'OFFLINE', 'UNKNOWN', 'RESTRICTED', 'UP', 'CUSTOM']) crowded.push(event('b', v++, status(s)));
  crowded.push(event('b', v++, info), event('b', v++, { type: 'ENDPOINTS_DETECTED', endpoints: [] }), event('b', v++, { type: 'REGISTRATION_UPDATED', registration }));
  assert.is(compactHistory(crowded, 10).length, 10);
});

test('since() skips compacted and dropped events; clear() forgets everything', () => {
  const held = new HeldEvents(10);
  const [a0, b0, a1] = [event('a', 0, { type: 'REGISTERED', registration }), event('b', 0, { type: 'REGISTERED', registration }), event('a', 1, status('UP'))];
  for (const e of [a0, b0, a1]) held.add(e);
  held.drop('b');
  assert.equal(held.since(0), [a0, a1]);
  assert.equal(held.ofInstance('b'), []);
  held.drop('unknown');
  assert.is(held.size, 2);
  held.clear();
  assert.is(held.size, 0);
});

test('a dropped event leaves a tombstone: since() finds its place, size and all() leave it out', () => {
  const held = new HeldEvents(10);
  const events = ['a', 'b', 'c', 'd'].flatMap((id) => [event(id, 0, { type: 'REGISTERED', registration })]);
  const later = ['a', 'b', 'c', 'd'].map((id) => event(id, 1, status('UP')));
  for (const e of [...events, ...later]) held.add(e);
  held.drop('b'); // 2 of 8 entries: below half, the list is not rebuilt
  assert.is(held.size, 6);
  assert.equal(held.all().map((e) => `${e.instance}${e.version}`), ['a0', 'c0', 'd0', 'a1', 'c1', 'd1']);
  assert.equal(held.since(events[1]!.seq).map((e) => `${e.instance}${e.version}`), ['c0', 'd0', 'a1', 'c1', 'd1'], 'from a tombstone');
  assert.equal(held.since(later[1]!.seq).map((e) => `${e.instance}${e.version}`), ['c1', 'd1']);
  held.drop('c'); // now half: rebuilt
  assert.equal(held.since(0).map((e) => `${e.instance}${e.version}`), ['a0', 'd0', 'a1', 'd1']);
  assert.is(held.size, 4);
});

test('the memory log numbers events from its base, refuses a version that is not newer, and delivers before it resolves', async () => {
  const delivered: InstanceEvent[] = [];
  const log: EventLog = new MemoryEventLog(1000);
  await log.open({ load: () => undefined, event: (e) => delivered.push(e), dropped: () => undefined });
  const none = { before: {} as never, after: {} as never };
  const draft = (version: number): NewEvent => ({ type: 'REGISTERED', registration, instance: 'a', version, timestamp: 't' });
  const stored = await log.append(draft(0), none);
  assert.is(stored.seq, 1000);
  assert.equal(delivered, [stored]);
  const conflict = await log.append(draft(0), none).catch((error: unknown) => error);
  assert.instance(conflict, VersionConflictError);
  assert.is((conflict as VersionConflictError).current, 0);
  assert.is((await log.append(draft(3), none)).seq, 1001, 'gaps in versions are allowed, as in SBA');
});

test('memory log: a deregistered instance keeps its version (conflicts, comeback) and its place in the cap\'s order until it registers again', async () => {
  const dropped: string[] = [];
  const log = new MemoryEventLog(1, 1);
  await log.open({ load: () => undefined, event: () => undefined, dropped: (id) => dropped.push(id) });
  const write = (instance: string, version: number, draft: EventDraft) => log.append({ ...draft, instance, version, timestamp: 't' } as NewEvent);
  await write('a', 0, { type: 'REGISTERED', registration });
  await write('a', 1, { type: 'DEREGISTERED' });
  const conflict = await write('a', 1, { type: 'REGISTERED', registration }).catch((error: unknown) => error);
  assert.is((conflict as VersionConflictError).current, 1, 'the version of a deregistered instance is kept');
  await write('a', 2, info);
  await write('b', 0, { type: 'REGISTERED', registration });
  assert.equal(dropped, [], 'an event after DEREGISTERED (not REGISTERED) leaves it deregistered, in its place');
  await write('b', 1, { type: 'DEREGISTERED' });
  assert.equal(dropped, ['a'], 'beyond the cap of 1, the oldest deregistration goes');
  await write('b', 2, { type: 'REGISTERED', registration });
  await write('c', 0, { type: 'REGISTERED', registration });
  await write('c', 1, { type: 'DEREGISTERED' });
  assert.equal(dropped, ['a'], 'b came back: it is no longer among the deregistered');
  assert.is((await write('a', 0, { type: 'REGISTERED', registration })).version, 0, 'a dropped id starts again');
});

test('seqs of a daemon start above every earlier run\'s; a resume point is only an id this log issued', async () => {
  const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
  const run = async (now: number) => {
    const registry = new InstanceRegistry(new EventBus(() => undefined), { retentionAfterDeregistration: 1000, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet });
    await registry.open(new MemoryEventLog(runSeqBase(now)), { lease: () => ({ held: true, token: 1 }) });
    await registry.register(registration);
    return registry;
  };
  const earlier = await run(1_795_000_000_000);
  const later = await run(1_795_000_000_001);
  assert.ok(later.lastSeq > earlier.lastSeq);
  assert.is(later.resumePoint(earlier.lastSeq), 0);
  assert.is(later.resumePoint(later.lastSeq), later.lastSeq);
  assert.is(later.resumePoint(later.lastSeq - 1), later.lastSeq - 1, 'just before the first event of this run');
  assert.is(later.resumePoint(later.lastSeq + 1), 0, 'an id never issued');
});

const wire = (events: readonly InstanceEvent[]) => events.map((e) => `${e.instance}${e.version}`);
const leftAt = (version: number) => ({ version, registration, statusTimestamp: '1970-01-01T00:00:00.000Z' });

test('a sealed history is held apart, compressed, and still read in seq order by all, since, ofInstance and size', () => {
  const held = new HeldEvents(100);
  const events = [event('a', 0, { type: 'REGISTERED', registration }), event('b', 0, { type: 'REGISTERED', registration }), event('a', 1, status('UP')),
    event('b', 1, status('UP')), event('a', 2, { type: 'DEREGISTERED' }), event('b', 2, info)];
  for (const e of events) held.add(e);
  const before = { all: wire(held.all()), since: wire(held.since(events[2]!.seq)), a: held.ofInstance('a'), size: held.size };
  assert.ok(held.seal('a', leftAt(2)));
  assert.not.ok(held.seal('nobody', leftAt(0)));
  assert.is(held.retired('a')!.leftVersion, 2);
  assert.equal(retiredDetails(held.retired('a')!), { registration, statusTimestamp: leftAt(2).statusTimestamp });
  assert.is(held.retired('b'), undefined);
  assert.equal(wire(held.all()), before.all);
  assert.equal(wire(held.since(events[2]!.seq)), before.since);
  assert.equal(wire(held.since(events[4]!.seq)), ['b2'], 'a sealed history with nothing newer is not in a later since()');
  assert.equal(JSON.parse(JSON.stringify(held.ofInstance('a'))), JSON.parse(JSON.stringify(before.a)));
  assert.is(held.size, before.size);
});

test('events after a sealed part: the instance came back, order holds, compaction reaches into the sealed part, drop forgets both', () => {
  const held = new HeldEvents(4);
  const first = [event('a', 0, { type: 'REGISTERED', registration }), event('a', 1, info), event('a', 2, { type: 'DEREGISTERED' })];
  for (const e of first) held.add(e);
  held.seal('a', leftAt(2));
  held.add(event('b', 0, { type: 'REGISTERED', registration }));
  held.add(event('a', 3, { type: 'REGISTERED', registration }));
  assert.is(held.retired('a'), undefined, 'back');
  assert.equal(wire(held.ofInstance('a')), ['a0', 'a1', 'a2', 'a3']);
  assert.equal(wire(held.all()), ['a0', 'a1', 'a2', 'b0', 'a3']);
  held.add(event('a', 4, status('UP')));
  assert.equal(wire(held.ofInstance('a')), ['a1', 'a2', 'a3', 'a4'], 'the oldest, sealed, went first');
  held.add(event('a', 5, status('DOWN')));
  assert.equal(wire(held.ofInstance('a')), ['a2', 'a3', 'a4', 'a5']);
  assert.equal(wire(held.all()), ['a2', 'b0', 'a3', 'a4', 'a5']);
  assert.is(held.size, 5);
  held.add(event('a', 6, { type: 'DEREGISTERED' }));
  held.seal('a', leftAt(6));
  assert.equal(wire(held.ofInstance('a')), ['a3', 'a4', 'a5', 'a6'], 'sealed again, as one');
  assert.equal(wire(held.since(0)), ['b0', 'a3', 'a4', 'a5', 'a6']);
  held.drop('a');
  assert.equal(wire(held.all()), ['b0']);
  assert.is(held.size, 1);
  assert.is(held.retired('a'), undefined);
  held.seal('b', leftAt(0));
  held.clear();
  assert.equal(held.all(), []);
  assert.is(held.size, 0);
});

test('whole histories held late (a cluster node that came to check them) join the global list in seq order, compacted as if added one by one', () => {
  const max = 4;
  const late = new HeldEvents(max);
  const early = new HeldEvents(max);
  const kinds = [status('UP'), status('DOWN'), info, status('UP'), status('DOWN'), status('UP')];
  const a = [event('a', 0, { type: 'REGISTERED', registration }), ...kinds.map((draft, i) => event('a', i + 1, draft))];
  const b = [event('b', 0, { type: 'REGISTERED', registration }), event('b', 1, status('UP'))];
  const c = event('c', 0, { type: 'REGISTERED', registration });
  for (const e of [...a, ...b, c].sort((x, y) => x.seq - y.seq)) early.add(e);
  // Held of another instance, newer than every event of the histories that come later.
  late.add(c);
  late.hold(new Map([['a', a], ['b', b]]));
  assert.equal(late.all(), early.all());
  assert.equal(late.ofInstance('a'), early.ofInstance('a'));
  assert.is(late.ofInstance('a').length, max);
  assert.equal(late.since(b[0]!.seq), early.since(b[0]!.seq));
  assert.is(late.size, early.size);
  // One already held is left as it is.
  late.hold(new Map([['c', [c]]]));
  assert.is(late.size, early.size);
});

test.run();
