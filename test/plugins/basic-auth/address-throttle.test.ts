import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AddressThrottle } from '../../../plugins/basic-auth/address-throttle.js';
import { addressKey } from '../../../core/http/address-key.js';
import { OccasionalWarning } from '../../../core/occasional-warning.js';
import type { Logger } from '../../../core/plugin-api.js';

function throttle(burst: number, refillMs: number, maxAddresses = 100): { throttle: AddressThrottle; advance: (ms: number) => void } {
  let now = 1_000_000;
  return { throttle: new AddressThrottle({ burst, refillMs, maxAddresses }, () => now), advance: (ms) => (now += ms) };
}

test('an address gets `burst` attempts, then one per refill interval, with the wait until the next', () => {
  const { throttle: t, advance } = throttle(3, 5000);
  for (let i = 0; i < 3; i += 1) assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.equal(t.take('10.0.0.1'), { allowed: false, retryAfterMs: 5000 });
  advance(2000);
  assert.equal(t.take('10.0.0.1'), { allowed: false, retryAfterMs: 3000 });
  // Other addresses are not affected.
  assert.equal(t.take('10.0.0.2'), { allowed: true });
  advance(3000);
  assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.equal(t.take('10.0.0.1'), { allowed: false, retryAfterMs: 5000 });
  // A long quiet spell fills the bucket again, up to `burst` and no more.
  advance(60_000);
  for (let i = 0; i < 3; i += 1) assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.is(t.take('10.0.0.1').allowed, false);
});

test('a success gives its attempt back; an address in good standing is not stored at all', () => {
  const { throttle: t, advance } = throttle(2, 1000);
  assert.equal(t.take('10.0.0.1'), { allowed: true });
  t.refund('10.0.0.1');
  assert.is(t.size, 0);
  t.take('10.0.0.1');
  t.take('10.0.0.1');
  assert.is(t.take('10.0.0.1').allowed, false);
  t.refund('10.0.0.1');
  assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.is(t.size, 1);
  // Refunds never raise a bucket past full, and refunding an unknown address does nothing.
  advance(10_000);
  t.refund('10.0.0.1');
  t.refund('10.0.0.9');
  assert.is(t.size, 0);
  assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.equal(t.take('10.0.0.1'), { allowed: true });
  assert.is(t.take('10.0.0.1').allowed, false);
});

test('memory is bounded whatever the number of addresses: the least recently seen is forgotten', () => {
  const { throttle: t } = throttle(1, 60_000, 1000);
  for (let i = 0; i < 100_000; i += 1) t.take(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`);
  assert.is(t.size, 1000);
  const { throttle: small } = throttle(1, 60_000, 2);
  small.take('a');
  small.take('b');
  assert.is(small.take('a').allowed, false);
  small.take('c');
  // b was the least recently seen (a was touched again), so b starts over; a is still slowed.
  assert.is(small.take('b').allowed, true);
  assert.is(small.take('c').allowed, false);
  assert.ok(small.size <= 2);
});

test('addressKey: IPv4 as is (also IPv4-mapped), IPv6 by its /64, unknown when absent', () => {
  assert.is(addressKey(undefined), 'unknown');
  assert.is(addressKey(''), 'unknown');
  assert.is(addressKey('192.0.2.7'), '192.0.2.7');
  assert.is(addressKey('::ffff:192.0.2.7'), '192.0.2.7');
  assert.is(addressKey('::FFFF:192.0.2.7'), '192.0.2.7');
  const prefix = '2001:db8:1:2::/64';
  assert.is(addressKey('2001:db8:1:2:3:4:5:6'), prefix);
  assert.is(addressKey('2001:db8:1:2::9'), prefix);
  assert.is(addressKey('2001:0DB8:0001:0002:ffff::'), prefix);
  assert.is.not(addressKey('2001:db8:1:3::9'), prefix);
  assert.is(addressKey('::1'), '0:0:0:0::/64');
  assert.is(addressKey('fe80::1%eth0'), 'fe80:0:0:0::/64');
  assert.is(addressKey('64:ff9b::192.0.2.7'), '64:ff9b:0:0::/64');
  assert.is(addressKey('1:2:3:4:5:6:192.0.2.7'), '1:2:3:4::/64');
});

test('OccasionalWarning: one line per period, and the next says how many went unlogged', () => {
  let now = 0;
  const lines: string[] = [];
  const log = { warn: (message: string) => lines.push(message) } as unknown as Logger;
  const warning = new OccasionalWarning(log, 60_000, () => now);
  let built = 0;
  const message = () => {
    built += 1;
    return 'queue full';
  };
  for (let i = 0; i < 1000; i += 1) warning.note(message);
  assert.equal(lines, ['queue full']);
  assert.is(built, 1, 'the message is only built for lines written');
  now += 59_999;
  warning.note(message);
  assert.is(lines.length, 1);
  now += 1;
  warning.note(message);
  assert.equal(lines, ['queue full', 'queue full (and 1000 more since the last such warning)']);
  now += 60_000;
  warning.note(message);
  assert.equal(lines.at(-1), 'queue full');
});

test.run();
