import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import type { Daemon } from '../../support/daemon-process.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { startNode, stopAll } from '../cluster-redis/support.js';
import { CLIENT_ID, startProvider, type TestProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { whoIs } from './support/vigil.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

/** The address browsers use: a load balancer in front of both nodes (never reached here: the test plays it). */
const BALANCER = 'http://127.0.0.1:1';
const WHOAMI = fileURLToPath(new URL('./support/whoami-plugin.js', import.meta.url));

let redis: RedisProcess | undefined;
let provider: TestProvider | undefined;
const nodes: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  provider = await startProvider({ groups: { alice: ['ops', 'payments-oncall'] } });
  for (const id of ['n1', 'n2']) {
    nodes.push(await startNode(id, {
      redisUrl: redis.url,
      plugins: ['rest-api', 'sse', 'cluster-redis', 'oidc', WHOAMI],
      config: { oidc: { issuer: provider.issuer, 'client-id': CLIENT_ID, 'base-url': BALANCER } },
    }));
  }
});

test.after(async () => {
  await stopAll(nodes.splice(0));
  await provider?.close();
  await redis?.stop();
});

test('a sign-in begun on node 2 finishes on node 1; the session made there, held in Redis, is served by node 2; signing out on one ends it on both', async () => {
  // n1 makes the session; n2 began the sign-in and serves the session afterwards.
  const [n1, n2] = nodes as [Daemon, Daemon];
  const agent = new UserAgent();
  const callback = await agent.open(`${n2.url}/login`, { login: 'alice', stopAt: (url) => url.startsWith(`${BALANCER}/login/oidc/callback`) });
  // The balancer sends the browser's return to the other node; the attempt's cookie came from node 2.
  agent.setCookie(n1.url, 'vigil_login', agent.cookie(n2.url, 'vigil_login')!, '/login');
  const back = await agent.send('GET', `${n1.url}/login/oidc/callback${new URL(callback.location!).search}`);
  assert.is(back.status, 303, back.body);
  assert.is(back.location, `${BALANCER}/`);
  const id = agent.cookie(n1.url, 'vigil_session')!;
  agent.setCookie(n2.url, 'vigil_session', id);
  const alice = { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops', 'payments-oncall'] };
  assert.equal(await whoIs(agent, n1.url), alice);
  assert.equal(await whoIs(agent, n2.url), alice, 'node 2 serves the session node 1 made');

  // Redis holds the session under a hash of its id, sealed: no id, name, group or token in it.
  const client = createClient({ url: redis!.url });
  await client.connect();
  try {
    const keys = await client.keys('*');
    const hashed = createHash('sha256').update(id).digest('base64url');
    assert.ok(keys.some((key) => key.includes('oidc.sessions') && key.endsWith(hashed)), keys.join('\n'));
    for (const key of keys) {
      assert.not.ok(key.includes(id), `key ${key}`);
      if ((await client.type(key)) !== 'string') continue;
      const value = (await client.get(key)) ?? '';
      for (const secret of [id, 'alice', 'payments-oncall', 'eyJ']) assert.not.ok(value.includes(secret), `${key} holds ${secret}`);
    }
  } finally {
    await client.quit();
  }

  const out = await agent.send('POST', `${n1.url}/logout`, { form: {} });
  assert.is(out.status, 303);
  assert.is(await whoIs(agent, n1.url), 401);
  const other = new UserAgent();
  other.setCookie(n2.url, 'vigil_session', id);
  assert.is(await whoIs(other, n2.url), 401, 'ended on node 2 as well');
});

test.run();
