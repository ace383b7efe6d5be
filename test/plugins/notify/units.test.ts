import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceEvent, OutboxItem } from '../../../core/plugin-api.js';
import { heldChange } from '../../../plugins/notify/hold.js';
import { TokenBucket, fullJitter, retryAfterMs } from '../../../plugins/notify/pacing.js';

const T0 = Date.parse('2026-11-22T10:00:00Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

function history(...steps: [ms: number, status: string | 'REGISTERED' | 'DEREGISTERED'][]): InstanceEvent[] {
  return steps.map(([ms, status], version) => (status === 'REGISTERED' || status === 'DEREGISTERED'
    ? { instance: 'i', version, seq: version, timestamp: at(ms), type: status, ...(status === 'REGISTERED' ? { registration: {} } : {}) }
    : { instance: 'i', version, seq: version, timestamp: at(ms), type: 'STATUS_CHANGED', statusInfo: { status, details: {} } }) as InstanceEvent);
}

function item(events: InstanceEvent[], version: number, from: string): OutboxItem {
  const event = events[version]!;
  return { seq: version, instance: 'i', version, type: event.type, timestamp: event.timestamp, from, to: (event as { statusInfo: { status: string } }).statusInfo.status };
}

test('hold: decided from the recorded history alone, the same on every node', () => {
  const events = history([0, 'REGISTERED'], [10, 'UP'], [100_000, 'DOWN'], [110_000, 'UP'], [200_000, 'DOWN'], [205_000, 'OFFLINE'], [300_000, 'UP']);
  const hold = 30_000;
  assert.equal(heldChange(item(events, 1, 'UNKNOWN'), events, hold), { from: 'UNKNOWN' }, 'UP held: sent');
  assert.is(heldChange(item(events, 2, 'UP'), events, hold), undefined, 'DOWN followed within the hold: dropped');
  assert.is(heldChange(item(events, 3, 'DOWN'), events, hold), undefined, 'back to UP within the hold: UP → UP, nothing');
  assert.is(heldChange(item(events, 4, 'UP'), events, hold), undefined);
  assert.equal(heldChange(item(events, 5, 'DOWN'), events, hold), { from: 'UP' }, 'UP → DOWN → OFFLINE is one change');
  assert.equal(heldChange(item(events, 6, 'OFFLINE'), events, hold), { from: 'OFFLINE' });
  // A deregistration ends a run: what came before it does not count.
  const again = history([0, 'REGISTERED'], [1, 'DOWN'], [2, 'DEREGISTERED'], [3, 'REGISTERED'], [4, 'DOWN']);
  assert.equal(heldChange(item(again, 4, 'UNKNOWN'), again, hold), { from: 'UNKNOWN' });
});

test('backoff: full jitter under an exponential bound with a cap; Retry-After as seconds or a date', () => {
  assert.is(fullJitter(1, 1000, 300_000, () => 0.999), 999);
  assert.is(fullJitter(4, 1000, 300_000, () => 0.5), 4000);
  assert.is(fullJitter(30, 1000, 300_000, () => 0.999), 299_700);
  assert.is(fullJitter(3, 1000, 300_000, () => 0), 0);
  assert.is(retryAfterMs('1'), 1000);
  assert.is(retryAfterMs('0.25'), 250);
  assert.is(retryAfterMs(new Date(T0 + 5000).toUTCString(), T0), 5000);
  assert.is(retryAfterMs(new Date(T0 - 5000).toUTCString(), T0), 0);
  assert.is(retryAfterMs('soon'), undefined);
  assert.is(retryAfterMs(undefined), undefined);
});

test('token bucket: a burst, then one token per 1/rate seconds', () => {
  const bucket = new TokenBucket(2, 2, 0);
  assert.is(bucket.take(0), 0);
  assert.is(bucket.take(0), 0);
  assert.is(bucket.take(0), 500);
  assert.is(bucket.take(250), 250);
  assert.is(bucket.take(500), 0);
  assert.is(new TokenBucket(0.5, 1, 0).take(0), 0);
});

test.run();
