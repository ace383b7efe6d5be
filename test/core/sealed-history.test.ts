import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { storedEvent } from '../../core/store/event-shape.js';
import { heldEndpoints } from '../../core/store/held-endpoints.js';
import { cameBack, HistorySealer, isRetired, openHistory, retiredDetails } from '../../core/store/sealed-history.js';
import type { InstanceEvent, Registration } from '../../core/store/types.js';

const base = 'http://10.0.0.7:8080/actuator';
const registration: Registration = {
  name: 'shop – café ☕', managementUrl: base, healthUrl: `${base}/health`, serviceUrl: 'http://10.0.0.7:8080/', source: 'http-api',
  metadata: { startup: '2026-11-25T08:00:00.000Z', odd: 'lone \ud800 surrogate, quote " and \\ backslash' },
};
const history: InstanceEvent[] = [
  storedEvent({ type: 'REGISTERED', instance: 'a1', version: 0, timestamp: '2026-11-25T08:00:01.000Z', registration }, 1_764_057_600_000_001),
  storedEvent({ type: 'STATUS_CHANGED', instance: 'a1', version: 1, timestamp: '2026-11-25T08:00:02.000Z', statusInfo: { status: 'UP', details: { db: { status: 'UP' } } } }, 1_764_057_600_000_007),
  storedEvent({ type: 'ENDPOINTS_DETECTED', instance: 'a1', version: 2, timestamp: '2026-11-25T08:00:03.000Z', endpoints: heldEndpoints([{ id: 'env', url: `${base}/env` }, { id: 'x', url: 'http://elsewhere/x' }], registration) }, 1_764_057_600_000_009),
  storedEvent({ type: 'INFO_CHANGED', instance: 'a1', version: 3, timestamp: '2026-11-25T08:00:04.000Z', info: { build: { version: '1.0' }, n: 1.5, list: [1, null, true] } }, 1_764_057_600_000_010),
  storedEvent({ type: 'DEREGISTERED', instance: 'a1', version: 4, timestamp: '2026-11-25T08:00:05.000Z' }, 1_764_057_600_000_020),
];
const retired = { version: 4, registration, statusTimestamp: '2026-11-25T08:00:05.000Z' };
const sealHistory: HistorySealer['seal'] = (events, left) => new HistorySealer().seal(events, left);

test('a sealed history opens to the same events, in the wire form, frozen, with their seqs', () => {
  const sealed = sealHistory(history, retired);
  const opened = openHistory(sealed);
  assert.equal(JSON.parse(JSON.stringify(opened)), JSON.parse(JSON.stringify(history)));
  assert.equal(opened.map((event) => event.seq), history.map((event) => event.seq));
  assert.equal(opened[0]!.type === 'REGISTERED' && opened[0]!.registration.metadata.odd, registration.metadata.odd);
  assert.ok(opened.every((event) => Object.isFrozen(event)));
  assert.equal(Object.keys(opened[1]!), Object.keys(history[1]!), 'the same shape as events stored by a log');
  assert.is(sealed.count, 5);
  assert.is(sealed.lastSeq, 1_764_057_600_000_020);
});

test('a sealed history is several times smaller than its JSON, and knows how its instance left', () => {
  const sealed = sealHistory(history, retired);
  const json = JSON.stringify(history).length;
  assert.ok(sealed.packed.length * 2 < json, `${sealed.packed.length} characters sealed, ${json} of JSON`);
  assert.ok(isRetired(sealed));
  assert.is(sealed.leftVersion, 4);
  assert.equal(retiredDetails(sealed), { registration, statusTimestamp: retired.statusTimestamp });
});

test('a node holds a sealed history as one string, and reads the same history back from it', () => {
  const sealer = new HistorySealer();
  const sealed = sealer.seal(history, retired);
  assert.type(sealed.packed, 'string');
  const read = sealer.view(sealed.packed);
  assert.equal({ ...read }, { ...sealed });
  assert.equal(JSON.parse(JSON.stringify(openHistory(read))), JSON.parse(JSON.stringify(history)));
  const older = sealer.view(sealer.seal(history.slice(0, 2), null).packed);
  assert.is(older.leftVersion, null);
  assert.is(older.count, 2);
  assert.is(older.lastSeq, 1_764_057_600_000_007);
  assert.equal(sealer.view(cameBack(read).packed), cameBack(read));
});

test('a history sealed without a retirement, or whose instance came back, has left no more', () => {
  const older = sealHistory(history.slice(0, 2), null);
  assert.not.ok(isRetired(older));
  assert.is(older.leftVersion, null);
  const back = cameBack(sealHistory(history, retired));
  assert.not.ok(isRetired(back));
  assert.is(back.count, 5);
  assert.equal(openHistory(back).length, 5);
});

/** The history of another pod of the same fleet: other id, address, times and seqs. */
function anotherPod(n: number): InstanceEvent[] {
  const podBase = `http://10.0.${n}.9:8080/actuator`;
  const podRegistration: Registration = { ...registration, managementUrl: podBase, healthUrl: `${podBase}/health`, serviceUrl: `http://10.0.${n}.9:8080/`, metadata: { startup: `2026-11-25T09:${10 + n}:00.000Z` } };
  return history.map((event) => {
    const { seq, ...rest } = event;
    const moved = { ...rest, instance: `pod-${n}`, timestamp: event.timestamp.replace('08:', `1${n}:`) };
    if (moved.type === 'REGISTERED') return storedEvent({ ...moved, registration: podRegistration }, seq + n * 1000);
    if (moved.type === 'ENDPOINTS_DETECTED') return storedEvent({ ...moved, endpoints: heldEndpoints([{ id: 'env', url: `${podBase}/env` }], podRegistration) }, seq + n * 1000);
    return storedEvent(moved as InstanceEvent, seq + n * 1000);
  });
}

test('a sealer takes its first small history as a sample: the fleet\'s later histories seal smaller, and every one opens', () => {
  const sealer = new HistorySealer();
  const first = sealer.seal(anotherPod(1), retired);
  const second = sealer.seal(anotherPod(2), retired);
  const third = sealer.seal(anotherPod(3), null);
  const alone = new HistorySealer().seal(anotherPod(2), retired);
  assert.is.not(second.dictionary, first.dictionary, 'the first was sealed before there was a sample');
  assert.is(third.dictionary, second.dictionary, 'one sample for the sealer\'s life');
  assert.ok(second.packed.length * 1.5 < alone.packed.length, `${second.packed.length} characters with the sample, ${alone.packed.length} without`);
  for (const [sealed, n] of [[first, 1], [second, 2], [third, 3]] as const) {
    assert.equal(JSON.parse(JSON.stringify(openHistory(sealed))), JSON.parse(JSON.stringify(anotherPod(n))));
  }
  assert.equal(retiredDetails(second as Parameters<typeof retiredDetails>[0]), { registration, statusTimestamp: retired.statusTimestamp });
  assert.is(cameBack(second).dictionary, second.dictionary);
});

test('a history too large for a sample is sealed as it is, and the next small one becomes the sample', () => {
  const sealer = new HistorySealer();
  const big = sealer.seal([storedEvent({ type: 'INFO_CHANGED', instance: 'big', version: 1, timestamp: '2026-11-25T08:00:04.000Z', info: { blob: 'x'.repeat(5000) } }, 5)], null);
  const small = sealer.seal(anotherPod(1), retired);
  const next = sealer.seal(anotherPod(2), retired);
  assert.is(small.dictionary, big.dictionary);
  assert.is.not(next.dictionary, small.dictionary);
  assert.equal(JSON.parse(JSON.stringify(openHistory(big)))[0].info.blob.length, 5000);
  assert.equal(JSON.parse(JSON.stringify(openHistory(next))), JSON.parse(JSON.stringify(anotherPod(2))));
});

test.run();
