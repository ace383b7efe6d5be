import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Attempt, InstanceNotification, Notification, NotificationChannel } from '../../../core/kits/notify-channel/index.js';
import type { InstanceEvent } from '../../../core/domain/index.js';
import type { Logger, OutboxItem } from '../../../core/plugin-api.js';
import { notifySchema, type DeliverySettings } from '../../../plugins/notify/config-schema.js';
import { DeliveryQueue } from '../../../plugins/notify/delivery-queue.js';
import { describe } from '../../../plugins/notify/facts.js';
import { heldChange } from '../../../plugins/notify/hold.js';
import { TokenBucket, fullJitter, retryAfterMs } from '../../../plugins/notify/pacing.js';
import { nextRetry } from '../../../plugins/notify/retry-policy.js';
import { ChannelStats } from '../../../plugins/notify/stats.js';

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

test('hold: decided from the recorded history alone, the same on every node', async () => {
  const events = history([0, 'REGISTERED'], [10, 'UP'], [100_000, 'DOWN'], [110_000, 'UP'], [200_000, 'DOWN'], [205_000, 'OFFLINE'], [300_000, 'UP']);
  const hold = 30_000;
  assert.equal(await heldChange(item(events, 1, 'UNKNOWN'), events, hold), { from: 'UNKNOWN' }, 'UP held: sent');
  assert.is(await heldChange(item(events, 2, 'UP'), events, hold), undefined, 'DOWN followed within the hold: dropped');
  assert.is(await heldChange(item(events, 3, 'DOWN'), events, hold), undefined, 'back to UP within the hold: UP → UP, nothing');
  assert.is(await heldChange(item(events, 4, 'UP'), events, hold), undefined);
  assert.equal(await heldChange(item(events, 5, 'DOWN'), events, hold), { from: 'UP' }, 'UP → DOWN → OFFLINE is one change');
  assert.equal(await heldChange(item(events, 6, 'OFFLINE'), events, hold), { from: 'OFFLINE' });
  // A deregistration ends a run: what came before it does not count.
  const again = history([0, 'REGISTERED'], [1, 'DOWN'], [2, 'DEREGISTERED'], [3, 'REGISTERED'], [4, 'DOWN']);
  assert.equal(await heldChange(item(again, 4, 'UNKNOWN'), again, hold), { from: 'UNKNOWN' });
});

test('hold: a run of changes does not reach back into a maintenance window (its end report told the status it left)', async () => {
  const hold = 30_000;
  // A window [50 s, 105 s): the DOWN is inside it, what follows after it.
  const inWindow = async (ms: number) => ms >= T0 + 50_000 && ms < T0 + 105_000;
  const back = history([0, 'REGISTERED'], [10, 'UP'], [100_000, 'DOWN'], [110_000, 'UP']);
  assert.is(await heldChange(item(back, 3, 'DOWN'), back, hold), undefined, 'without the window: UP → DOWN → UP is nothing');
  assert.equal(await heldChange(item(back, 3, 'DOWN'), back, hold, inWindow), { from: 'DOWN' }, 'the window\'s report told DOWN: the recovery is sent');
  const on = history([0, 'REGISTERED'], [10, 'UP'], [100_000, 'DOWN'], [110_000, 'UP'], [115_000, 'OFFLINE']);
  assert.is(await heldChange(item(on, 3, 'DOWN'), on, hold, inWindow), undefined, 'followed within the hold: dropped, window or not');
  assert.equal(await heldChange(item(on, 4, 'UP'), on, hold, inWindow), { from: 'DOWN' }, 'DOWN (the window\'s) → UP → OFFLINE is DOWN → OFFLINE');
  assert.equal(await heldChange(item(on, 4, 'UP'), on, hold), { from: 'UP' }, 'without the window: UP → OFFLINE');
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

test('retry policy with the default delivery settings: a receiver away for 10 minutes is retried until it is back; given up only past max-age', () => {
  const defaults = (notifySchema.validateSync({}) as { delivery: DeliverySettings }).delivery;
  assert.equal([defaults['max-attempts'], defaults['max-age'], defaults['backoff-base'], defaults['backoff-cap']], [0, 3_600_000, 1000, 300_000]);
  const refused = { reason: 'ECONNREFUSED' };
  for (const random of [() => 0.01, () => 0.5, () => 0.999]) {
    // Away for 10 minutes: every failed attempt before then is followed by another, never more than backoff-cap later.
    let now = 0;
    let attempts = 0;
    while (now < 600_000 && attempts < 10_000) {
      attempts += 1;
      const next = nextRetry(refused, attempts, 0, defaults, now, random);
      assert.ok('retryInMs' in next, `attempt ${attempts} at ${now} ms given up: ${JSON.stringify(next)}`);
      assert.ok(next.retryInMs >= 0 && next.retryInMs < defaults['backoff-cap']);
      now += next.retryInMs;
    }
    assert.ok(attempts > 5, `only ${attempts} attempts in 10 minutes`);
  }
  // Never back: retried until the next wait would pass the hour, then given up, naming why.
  let now = 0;
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const next = nextRetry(refused, attempts, 0, defaults, now, () => 0.999);
    if ('giveUp' in next) {
      assert.is(next.giveUp, `ECONNREFUSED (after ${attempts} attempts; the next would pass max-age)`);
      break;
    }
    now += next.retryInMs;
  }
  assert.ok(now <= 3_600_000 && now > 3_600_000 - defaults['backoff-cap'], `gave up at ${now} ms`);
  // A wait the receiver asked for is kept as is; max-attempts, when set, ends it sooner.
  assert.equal(nextRetry({ reason: 'HTTP 429', retryAfterMs: 30_000 }, 1, 0, defaults, 0), { retryInMs: 30_000, asked: true });
  assert.equal(nextRetry({ reason: 'HTTP 429', retryAfterMs: 3_600_001 }, 1, 0, defaults, 0), { giveUp: 'HTTP 429 (after 1 attempt; the next would pass max-age)' });
  assert.equal(nextRetry(refused, 3, 0, { ...defaults, 'max-attempts': 3 }, 0), { giveUp: 'ECONNREFUSED (after 3 attempts, max-attempts)' });
});

test('delivery queue: a reminder waiting for a retry gives way to a newer state; a real change never does', async () => {
  const delivered: string[] = [];
  const outcomes: Attempt[] = [];
  let attempted!: () => void;
  const channel: NotificationChannel = {
    name: 'fake',
    settings: { enabled: true, on: undefined, ignoreChanges: undefined, rateLimit: 0, reminders: true },
    target: 'fake',
    secrets: [],
    deliver(notification: Notification) {
      const outcome = outcomes.shift() ?? { outcome: 'delivered' };
      if (outcome.outcome === 'delivered') delivered.push(notification.id);
      attempted();
      return Promise.resolve(outcome);
    },
  };
  const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
  const defaults = (notifySchema.validateSync({}) as { delivery: DeliverySettings }).delivery;
  const stats = new ChannelStats();
  const tools = { send: () => Promise.resolve<Attempt>({ outcome: 'delivered' }), timeoutMs: 1000, signal: new AbortController().signal, log: quiet };
  // A retry an hour away (as the receiver asked): only a push can move the lane on.
  const queue = new DeliveryQueue({ channel, tools, settings: defaults, stats, log: quiet, redact: (text) => text, describe });
  const attempt = () => new Promise<void>((resolve) => { attempted = resolve; });
  const later = { outcome: 'retry', reason: 'HTTP 503', retryAfterMs: 3_000_000 } as const;
  try {
    outcomes.push(later);
    let done = attempt();
    queue.push('i', change('DOWN', 7, 1), []);
    await done;
    await Promise.resolve();
    assert.equal([stats.retries, queue.size], [1, 1], 'the reminder waits for its retry');
    done = attempt();
    queue.push('i', change('UP', 8), []);
    await done;
    assert.equal(delivered, ['i-8']);
    assert.equal([stats.superseded, stats.delivered, queue.size], [1, 1, 0]);

    outcomes.push(later);
    done = attempt();
    queue.push('j', change('DOWN', 3, 0, 'j'), []);
    await done;
    await Promise.resolve();
    queue.push('j', change('UP', 4, 0, 'j'), []);
    assert.equal([stats.superseded, queue.size], [1, 2], 'the real change is kept, the newer one waits behind it');
  } finally {
    queue.stop();
  }
});

function change(to: string, version: number, reminder = 0, instance = 'i'): InstanceNotification {
  return {
    kind: 'instance', id: `${instance}-${version}${reminder > 0 ? `-r${reminder}` : ''}`, type: 'STATUS_CHANGED', from: 'UP', to, version,
    timestamp: at(version), reminder, coalesced: 0, baseUrl: '',
    instance: { id: instance, name: 'orders', healthUrl: 'http://127.0.0.1:9/health', managementUrl: null, serviceUrl: null, source: null, metadata: {}, statusInfo: { status: to, details: {} } },
  };
}

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
