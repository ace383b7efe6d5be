import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VigilError } from '../../core/errors.js';
import { EventStore, runSeqBase, type NewEvent } from '../../core/store/event-store.js';
import type { EventDraft } from '../../core/store/types.js';

const registration = { name: 'a', healthUrl: 'http://h/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} };
const status = (s: string): EventDraft => ({ type: 'STATUS_CHANGED', statusInfo: { status: s, details: {} } });
const info: EventDraft = { type: 'INFO_CHANGED', info: {} };

function event(instance: string, version: number, draft: EventDraft): NewEvent {
  return { ...draft, instance, version, timestamp: new Date(0).toISOString() } as NewEvent;
}

test('append numbers events with a global seq and keeps per-instance order', () => {
  const store = new EventStore(100);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  store.append(event('b', 0, { type: 'REGISTERED', registration }));
  store.append(event('a', 1, status('UP')));
  assert.equal(store.all().map((e) => `${e.instance}${e.version}#${e.seq}`), ['a0#1', 'b0#2', 'a1#3']);
  assert.equal(store.ofInstance('a').map((e) => e.version), [0, 1]);
  assert.equal(store.lastSeq, 3);
  assert.equal(store.size, 3);
});

test('append refuses a version that is not newer (optimistic locking)', () => {
  const store = new EventStore(100);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  store.append(event('a', 1, status('UP')));
  try {
    store.append(event('a', 1, status('DOWN')));
    assert.unreachable('a second version 1 was accepted');
  } catch (error) {
    assert.instance(error, VigilError);
    assert.is((error as VigilError).code, 'ERR_VERSION_CONFLICT');
  }
  assert.equal(store.ofInstance('a').map((e) => e.version), [0, 1]);
});

test('compaction keeps the newest event of each kind (SBA example with limit 4)', () => {
  const store = new EventStore(4);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  store.append(event('a', 1, info));
  store.append(event('a', 3, status('DOWN')));
  store.append(event('a', 4, status('UP')));
  store.append(event('a', 5, info));
  store.append(event('a', 6, status('DOWN')));
  assert.equal(store.ofInstance('a').map((e) => `${e.type}${e.version}`), [
    'REGISTERED0', 'STATUS_CHANGED4', 'INFO_CHANGED5', 'STATUS_CHANGED6',
  ]);
  assert.equal(store.all().map((e) => e.version), [0, 4, 5, 6]);
  assert.is(store.size, 4);
});

test('compaction drops only the oldest events beyond the limit', () => {
  const store = new EventStore(10);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  for (let v = 1; v <= 30; v += 1) store.append(event('a', v, status(v % 2 ? 'UP' : 'DOWN')));
  const versions = store.ofInstance('a').map((e) => e.version);
  assert.is(versions.length, 10);
  assert.equal(versions, [0, 22, 23, 24, 25, 26, 27, 28, 29, 30]);
});

test('since() returns held events after a seq, skipping compacted and dropped ones', () => {
  const store = new EventStore(10);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  store.append(event('b', 0, { type: 'REGISTERED', registration }));
  store.append(event('a', 1, status('UP')));
  assert.equal(store.since(1).map((e) => e.seq), [2, 3]);
  assert.equal(store.since(3), []);
  store.drop('b');
  assert.equal(store.since(0).map((e) => e.seq), [1, 3]);
  assert.equal(store.ofInstance('b'), []);
  store.drop('unknown');
  assert.is(store.size, 2);
});

test('the cap is hard: statuses that never repeat, and more kinds than the cap, still keep at most the limit', () => {
  const store = new EventStore(10);
  store.append(event('a', 0, { type: 'REGISTERED', registration }));
  for (let v = 1; v <= 500; v += 1) store.append(event('a', v, status(`S${v}`)));
  assert.is(store.ofInstance('a').length, 10);
  assert.equal(store.ofInstance('a').map((e) => e.version), [0, 492, 493, 494, 495, 496, 497, 498, 499, 500]);
  const crowded = new EventStore(10);
  let v = 0;
  crowded.append(event('b', v++, { type: 'REGISTERED', registration }));
  for (const s of ['DOWN', 'OUT_OF_SERVICE', 'OFFLINE', 'UNKNOWN', 'RESTRICTED', 'UP', 'CUSTOM']) crowded.append(event('b', v++, status(s)));
  crowded.append(event('b', v++, info));
  crowded.append(event('b', v++, { type: 'ENDPOINTS_DETECTED', endpoints: [] }));
  crowded.append(event('b', v++, { type: 'REGISTRATION_UPDATED', registration }));
  assert.is(crowded.ofInstance('b').length, 10);
  assert.is(crowded.size, 10);
});

test('seqs of a daemon start above every earlier run\'s; a resume point is only an id this log issued', () => {
  const earlier = new EventStore(100, runSeqBase(1_795_000_000_000));
  earlier.append(event('a', 0, { type: 'REGISTERED', registration }));
  const later = new EventStore(100, runSeqBase(1_795_000_000_001));
  assert.ok(later.lastSeq >= earlier.lastSeq);
  later.append(event('a', 0, { type: 'REGISTERED', registration }));
  assert.is(later.resumePoint(earlier.lastSeq), 0);
  assert.is(later.resumePoint(later.lastSeq), later.lastSeq);
  assert.is(later.resumePoint(later.lastSeq - 1), later.lastSeq - 1, 'just before the first event of this run');
  assert.is(later.resumePoint(later.lastSeq + 1), 0, 'an id never issued');
});

test.run();
