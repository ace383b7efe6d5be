import { scryptSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { Authenticator, type AuthOutcome } from '../../../plugins/basic-auth/authenticator.js';
import { basicAuthSchema } from '../../../plugins/basic-auth/config.js';
import { getFrom } from '../../support/from-address.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** A valid scrypt hash at a low cost, so the thousands of checks of a simulated flood take little real time. */
function cheapHash(password: string): string {
  const salt = Buffer.from(`salt-of-${password}`.padEnd(16, '.').slice(0, 16));
  const hash = scryptSync(password, salt, 32, { N: 1024, r: 8, p: 1 });
  return `scrypt$N=1024,r=8,p=1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

function recordingLog(lines: string[]): Logger {
  const log: Logger = {
    error: (message) => void lines.push(`error ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    info: () => undefined,
    debug: () => undefined,
    child: () => log,
  };
  return log;
}

test('a flood of wrong passwords from one address for 10 minutes (simulated): the signed-in user keeps working, a user signing in for the first time from that address gets in, a user back from a break gets in', async () => {
  let now = Date.UTC(2025, 0, 1);
  const lines: string[] = [];
  const config = await basicAuthSchema.validate({
    users: [
      { username: 'admin', password: cheapHash('admin-pw') },
      { username: 'ops', password: cheapHash('ops-pw') },
      { username: 'dev', password: cheapHash('dev-pw') },
    ],
  });
  const auth = await Authenticator.create(config, recordingLog(lines), { now: () => now });
  const nat = '203.0.113.7';
  const as = (user: string, password: string): Promise<AuthOutcome> => auth.authenticate({ kind: 'basic', username: user, password }, nat);

  // Before the flood: admin and dev sign in from behind the same NAT.
  assert.is((await as('admin', 'admin-pw')).kind, 'verified');
  assert.is((await as('dev', 'dev-pw')).kind, 'verified');

  const floodOutcomes = new Map<string, number>();
  const start = now;
  let tick = 0;
  // Every 50 ms a new wrong password for admin or dev, from the same address, for 10 minutes.
  while (now - start < 10 * 60_000) {
    tick += 1;
    now += 50;
    const flood = await as(tick % 2 === 0 ? 'admin' : 'dev', `guess-${tick}`);
    floodOutcomes.set(flood.kind, (floodOutcomes.get(flood.kind) ?? 0) + 1);
    // The signed-in admin (a dashboard polling every 5 s) is never refused, well past the 5 minutes a verification is kept unused.
    if (tick % 100 === 0) assert.is((await as('admin', 'admin-pw')).kind, 'verified', `admin at ${(now - start) / 1000} s`);
    // ops signs in for the first time from the flooded address, two minutes in.
    if (now - start === 2 * 60_000) assert.is((await as('ops', 'ops-pw')).kind, 'verified', 'ops signing in during the flood');
    // dev was away for eight minutes, longer than a verification is kept: verified before, so not throttled either.
    if (now - start === 8 * 60_000) assert.is((await as('dev', 'dev-pw')).kind, 'verified', 'dev back from a break');
  }

  // The flood itself stayed slowed down: per user name 10 attempts, then one per 5 s refill, the rest 429.
  const refused = floodOutcomes.get('refused') ?? 0;
  const throttled = floodOutcomes.get('throttled') ?? 0;
  assert.is(refused + throttled, tick);
  assert.ok(refused >= 20 && refused <= 2 * (10 + (10 * 60_000) / 5000 + 1), `${refused} wrong passwords checked`);
  // A fresh wrong guess for admin or dev from that address is still slowed down at the end.
  assert.is((await as('admin', 'one-more-guess')).kind, 'throttled');
  assert.is((await as('dev', 'one-more-guess')).kind, 'throttled');
  // Slowed for those two only: another user name from the same address has its own budget.
  assert.is((await as('nobody', 'guess')).kind, 'refused');
  assert.equal(lines.filter((line) => line.includes('guess') || line.includes('-pw')), [], 'no password in the logs');
  assert.ok(lines.length > 0 && lines.every((line) => line.startsWith('warn logins from 203.0.113.7 are slowed down')), lines.join('\n'));
});

test('a verified entry is extended on use and expires 5 minutes after its last use; a known credential is checked again but not throttled', async () => {
  let now = 0;
  const config = await basicAuthSchema.validate({ users: [{ username: 'admin', password: cheapHash('admin-pw') }], 'failures-per-address': 1, 'failure-refill-interval': '1h' });
  const auth = await Authenticator.create(config, recordingLog([]), { now: () => now });
  const check = () => auth.authenticate({ kind: 'basic', username: 'admin', password: 'admin-pw' }, '10.0.0.1');
  assert.is((await check()).kind, 'verified');
  assert.is(auth.verifications, 1);
  for (let minute = 1; minute <= 30; minute += 1) {
    now += 60_000;
    assert.is((await check()).kind, 'verified');
  }
  assert.is(auth.verifications, 1, 'used every minute for half an hour: never checked again');
  // Exhaust admin's budget from this address, then stay away longer than the cache keeps an entry.
  assert.is((await auth.authenticate({ kind: 'basic', username: 'admin', password: 'wrong' }, '10.0.0.1')).kind, 'refused');
  assert.is((await auth.authenticate({ kind: 'basic', username: 'admin', password: 'wrong-2' }, '10.0.0.1')).kind, 'throttled');
  now += 5 * 60_000;
  assert.is((await check()).kind, 'verified');
  assert.is(auth.verifications, 3, 'checked again after 5 idle minutes, without waiting for the throttle');
});

test('across a reload, credentials verified before are still not throttled; once they stop verifying, they are guesses like any other', async () => {
  let now = 0;
  const limits = { 'failures-per-address': 1, 'failure-refill-interval': '1h' };
  const before = await basicAuthSchema.validate({ users: [{ username: 'admin', password: cheapHash('admin-pw') }, { username: 'old', password: cheapHash('old-pw') }], ...limits });
  const first = await Authenticator.create(before, recordingLog([]), { now: () => now });
  assert.is((await first.authenticate({ kind: 'basic', username: 'admin', password: 'admin-pw' }, '10.0.0.1')).kind, 'verified');
  assert.is((await first.authenticate({ kind: 'basic', username: 'old', password: 'old-pw' }, '10.0.0.1')).kind, 'verified');
  // The reload removes user "old"; meanwhile someone spends both names' budgets from that address.
  const after = await basicAuthSchema.validate({ users: [{ username: 'admin', password: cheapHash('admin-pw') }], ...limits });
  const second = await Authenticator.create(after, recordingLog([]), { now: () => now, previous: first });
  for (const user of ['admin', 'old']) {
    assert.is((await second.authenticate({ kind: 'basic', username: user, password: 'guess' }, '10.0.0.1')).kind, 'refused');
    assert.is((await second.authenticate({ kind: 'basic', username: user, password: 'guess-2' }, '10.0.0.1')).kind, 'throttled');
  }
  assert.is((await second.authenticate({ kind: 'basic', username: 'admin', password: 'admin-pw' }, '10.0.0.1')).kind, 'verified');
  assert.is((await second.authenticate({ kind: 'basic', username: 'old', password: 'old-pw' }, '10.0.0.1')).kind, 'refused');
  // Six minutes later the failure is forgotten, and so is the credential: it waits for the budget like a guess.
  now += 6 * 60_000;
  assert.is((await second.authenticate({ kind: 'basic', username: 'old', password: 'old-pw' }, '10.0.0.1')).kind, 'throttled');
});

test('behind a trusted reverse proxy each client has its own budget; a header from anyone else is ignored', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'basic-auth'],
    config: {
      'log-level': 'info',
      'basic-auth': {
        users: [{ username: 'admin', password: cheapHash('admin-pw') }, { username: 'ops', password: cheapHash('ops-pw') }],
        'failures-per-address': 2,
        'failure-refill-interval': '1m',
        'trusted-proxies': ['127.0.0.1'],
      },
    },
  });
  const port = Number(new URL(tk.url).port);
  const get = (from: string, authorization: string, forwardedFor?: string) =>
    getFrom(from, port, '/instances', { authorization, ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) }, 10_000);
  try {
    // The operator signed in through the proxy earlier, from another client.
    assert.is((await get('127.0.0.1', basic('admin', 'admin-pw'), '198.51.100.50')).status, 200);
    // Through the proxy (127.0.0.1), client 198.51.100.1 spends its two attempts for admin.
    assert.is((await get('127.0.0.1', basic('admin', 'g1'), '198.51.100.1')).status, 401);
    assert.is((await get('127.0.0.1', basic('admin', 'g2'), '198.51.100.1')).status, 401);
    const slowed = await get('127.0.0.1', basic('admin', 'g3'), '198.51.100.1');
    assert.is(slowed.status, 429);
    assert.match(JSON.parse(slowed.body).message as string, /^too many failed logins for this user name from this address; try again in \d+ s$/);
    // Prepending a made-up address does not give it a new budget.
    assert.is((await get('127.0.0.1', basic('admin', 'g4'), '192.0.2.99, 198.51.100.1')).status, 429);
    // Other clients of the same proxy are not affected, nor is the proxy's own address.
    assert.is((await get('127.0.0.1', basic('admin', 'g5'), '198.51.100.2')).status, 401);
    assert.is((await get('127.0.0.1', basic('admin', 'g6'))).status, 401);
    // Credentials verified before are not throttled, even for that user name from that client.
    assert.is((await get('127.0.0.1', basic('admin', 'admin-pw'), '198.51.100.1')).status, 200);

    // 127.1.0.1 is not a trusted proxy: its X-Forwarded-For is ignored, so changing it buys nothing.
    assert.is((await get('127.1.0.1', basic('admin', 'h1'), '198.51.100.3')).status, 401);
    assert.is((await get('127.1.0.1', basic('admin', 'h2'), '198.51.100.4')).status, 401);
    assert.is((await get('127.1.0.1', basic('admin', 'h3'), '198.51.100.5')).status, 429);
    // ...while another user signing in from that slowed address for the first time gets in.
    assert.is((await get('127.1.0.1', basic('ops', 'ops-pw'))).status, 200);
    assert.equal(tk.logs().filter((line) => /\b[gh]\d\b|admin-pw|ops-pw/.test(line)), []);
  } finally {
    await tk.stop();
  }
});

test.run();
