import { scryptSync } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { hashToken } from '../../../plugins/basic-auth/token-hash.js';
import { getFrom, type AddressedReply } from '../../support/from-address.js';

const PASSWORD = 'flood-Secret-1';
const OTHER_PASSWORD = 'flood-Secret-2';
const TOKEN = 'flood-token-3';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/** A hash four times as costly as the default (N=2^16, 64 MiB, a few hundred ms): its checks keep the verifier busy long enough to watch. */
function slowHash(password: string): string {
  const salt = Buffer.from('slow-salt-16byte');
  const hash = scryptSync(password, salt, 32, { N: 65536, r: 8, p: 1, maxmem: 2 * 128 * 65536 * 8 });
  return `scrypt$N=65536,r=8,p=1$${salt.toString('base64')}$${hash.toString('base64')}`;
}

async function withKernel(limits: Record<string, unknown>, run: (tk: TestKernel, get: (from: string, authorization: string) => Promise<AddressedReply>) => Promise<void>): Promise<void> {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'basic-auth'],
    config: {
      'log-level': 'info',
      'basic-auth': {
        users: [
          { username: 'admin', password: PASSWORD },
          { username: 'other', password: OTHER_PASSWORD },
          { username: 'slow', password: slowHash('slow-Secret') },
        ],
        tokens: [{ name: 'ci', 'token-hash': hashToken(TOKEN) }],
        ...limits,
      },
    },
  });
  const port = Number(new URL(tk.url).port);
  try {
    await run(tk, (from, authorization) => getFrom(from, port, '/instances', { authorization }, 10_000));
  } finally {
    await tk.stop();
  }
}

function assertTooMany(reply: AddressedReply, message: RegExp): void {
  assert.is(reply.status, 429, reply.body);
  assert.match(reply.retryAfter ?? '', /^[1-9]\d*$/);
  const body = JSON.parse(reply.body) as Record<string, unknown>;
  assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
  assert.is(body.status, 429);
  assert.is(body.error, 'Too Many Requests');
  assert.is(body.path, '/instances');
  assert.match(String(body.message), message);
  assert.ok(String(body.message).endsWith(`try again in ${reply.retryAfter} s`), String(body.message));
}

test('repeated failures for one user name from one address get 429 with Retry-After; successes give their attempt back; other user names, other addresses and signed-in credentials pass', () =>
  withKernel({ 'failures-per-address': 2, 'failure-refill-interval': '1m' }, async (tk, get) => {
    const here = '127.0.0.1';
    assert.is((await get(here, basic('admin', PASSWORD))).status, 200);
    assert.is((await get(here, basic('admin', 'guess-1'))).status, 401);
    // A success in between uses no attempt: the next failure is still allowed.
    assert.is((await get(here, basic('other', OTHER_PASSWORD))).status, 200);
    assert.is((await get(here, basic('admin', 'guess-2'))).status, 401);
    const slowed = await get(here, basic('admin', 'guess-3'));
    assertTooMany(slowed, /^too many failed logins for this user name from this address; /);
    assert.is(slowed.retryAfter, '60');
    // Unknown users are slowed the same way (nothing tells them apart).
    assert.is((await get(here, basic('nobody', 'guess-4'))).status, 401);
    assert.is((await get(here, basic('nobody', 'guess-5'))).status, 401);
    assertTooMany(await get(here, basic('nobody', 'guess-6')), /for this user name from this address/);
    // The same wrong password again is known to fail: 401 at once, no new guess.
    assert.is((await get(here, basic('admin', 'guess-1'))).status, 401);
    // Credentials verified before pass, even for the slowed user name from the slowed address.
    assert.is((await get(here, basic('admin', PASSWORD))).status, 200);
    // Another user name from the same address has its own attempts...
    assert.is((await get(here, basic('other', 'guess-7'))).status, 401);
    // ...and so does another address.
    assert.is((await get('127.1.0.1', basic('admin', 'guess-8'))).status, 401);

    const logs = tk.logs();
    assert.is(logs.filter((line) => line.includes('logins from 127.0.0.1 are slowed down after repeated failures')).length, 1, logs.join('\n'));
    assert.equal(logs.filter((line) => line.includes('guess-') || line.includes(PASSWORD)), []);
  }));

test('past the queue a new verification gets 429 at once; signed-in credentials and SHA-256 tokens never wait for it', () =>
  withKernel({ 'max-concurrent-verifications': 1, 'max-queued-verifications': 0 }, async (tk, get) => {
    assert.is((await get('127.0.0.1', basic('admin', PASSWORD))).status, 200);
    const attempts = Array.from({ length: 6 }, (_, i) => get(`127.1.0.${i + 1}`, basic('slow', `guess-${i}`)));
    // The first refusal proves a slow check is running and the queue is full...
    const firstRefusal = await Promise.race(attempts.map((attempt) => attempt.then((reply) => (reply.status === 429 ? reply : new Promise<never>(() => {})))));
    assertTooMany(firstRefusal, /^too many logins being verified; /);
    // ...and meanwhile the signed-in dashboard and a script with a SHA-256 token get through.
    assert.is((await get('127.0.0.1', basic('admin', PASSWORD))).status, 200);
    assert.is((await get('127.0.0.1', `Bearer ${TOKEN}`)).status, 200);
    const replies = await Promise.all(attempts);
    assert.equal([...new Set(replies.map((reply) => reply.status))].sort(), [401, 429]);
    for (const reply of replies.filter((reply) => reply.status === 429)) assertTooMany(reply, /being verified/);
    assert.is(tk.logs().filter((line) => line.includes('login verification queue full (1 running, 0 waiting)')).length, 1, tk.logs().join('\n'));
  }));

test.run();
