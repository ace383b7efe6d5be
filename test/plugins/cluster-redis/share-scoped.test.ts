import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { openSse } from '../sse/client.js';
import { PLUGINS, startNodes, stopAll, type WireEvent } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

/**
 * Scoped views on cluster nodes that hold only their share of the histories: what a node reads
 * from Redis is filtered by the caller's applications as what it holds in memory is.
 */
const PASSWORD = 'correct horse';
const as = (user: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${PASSWORD}`).toString('base64')}` });
const SECURED = {
  'basic-auth': {
    users: [{ username: 'bob', password: PASSWORD }, { username: 'root', password: PASSWORD }, { username: 'client', password: PASSWORD, role: 'registration' }],
  },
  access: {
    grants: [
      { subjects: ['user:bob'], role: 'viewer', applications: ['payments-*'] },
      { subjects: ['user:root'], role: 'admin' },
    ],
  },
};
const INSTANCES = 8;
/** Far fewer than the events of the fleet: lists and replays read Redis on every node. */
const RECENT = 3;

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let nodes: Daemon[] = [];
const payments = new Set<string>();
const orders = new Set<string>();

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  nodes = await startNodes(2, { redisUrl: redis.url, plugins: [...PLUGINS, 'basic-auth'], config: SECURED, cluster: { 'recent-events': RECENT } });
  for (let k = 1; k <= INSTANCES; k += 1) {
    const name = k % 2 === 1 ? 'payments-api' : 'orders';
    const reply = await call('POST', `${nodes[k % 2]!.url}/instances`, { json: fleet.registration(k, name), headers: as('client') });
    assert.is(reply.status, 201, reply.text);
    (name === 'orders' ? orders : payments).add((reply.json as { id: string }).id);
  }
  await eventually(async () => {
    const lists = await Promise.all(nodes.map(async (node) => JSON.stringify(await eventsAs(node, 'root'))));
    const events = JSON.parse(lists[0]!) as WireEvent[];
    return lists.every((list) => list === lists[0])
      && [...payments, ...orders].every((id) => events.some((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED'));
  }, 'every instance detected, on both nodes');
});

test.after(async () => {
  await stopAll(nodes);
  await fleet?.close();
  await redis?.stop();
});

async function eventsAs(node: Daemon, user: string): Promise<WireEvent[]> {
  const reply = await call('GET', `${node.url}/instances/events`, { headers: as(user) });
  assert.is(reply.status, 200, reply.text);
  return reply.json as WireEvent[];
}

const line = (e: { instance: string; version: number }) => `${e.instance}@${e.version}`;

/** The whole list as root sees it and as bob does, from one quiet moment (a check may record between reads). */
async function quietLists(node: Daemon): Promise<{ all: WireEvent[]; bobs: WireEvent[] }> {
  for (;;) {
    const all = await eventsAs(node, 'root');
    const bobs = await eventsAs(node, 'bob');
    if (JSON.stringify(await eventsAs(node, 'root')) === JSON.stringify(all)) return { all, bobs };
  }
}

test('the event list of a scoped caller holds the events of its applications, those read from Redis too', async () => {
  for (const node of nodes) {
    const { all, bobs } = await quietLists(node);
    assert.ok(all.length > RECENT * 4, `${all.length} events, most beyond the recent window`);
    assert.equal(bobs.map(line), all.filter((e) => payments.has(e.instance)).map(line), `on ${node.url}`);
  }
});

test('a scoped stream resumed from before the recent window replays only its applications\' events, from Redis', async () => {
  for (const node of nodes) {
    const { all } = await quietLists(node);
    const expected = all.filter((e) => payments.has(e.instance)).map(line);
    const stream = await openSse(`${node.url}/instances/events`, { ...as('bob'), 'last-event-id': '1' });
    try {
      await stream.until(() => stream.messages.length >= expected.length, `${expected.length} replayed events`);
      assert.equal(stream.messages.slice(0, expected.length).map((m) => line(m.json as WireEvent)), expected, `on ${node.url}`);
      assert.ok(stream.messages.every((m) => payments.has((m.json as WireEvent).instance)), 'nothing of orders');
    } finally {
      stream.close();
    }
  }
});

test('an instance\'s stream resumed by a scoped caller replays its whole history on either node; another application\'s is 404', async () => {
  const [id] = payments;
  const [other] = orders;
  for (const node of nodes) {
    const history = (await quietLists(node)).all.filter((e) => e.instance === id).map(line);
    const stream = await openSse(`${node.url}/instances/${id}/events`, { ...as('bob'), 'last-event-id': '1' });
    try {
      await stream.until(() => stream.messages.length >= history.length, `${history.length} replayed events of ${id}`);
      assert.equal(stream.messages.slice(0, history.length).map((m) => line(m.json as WireEvent)), history, `on ${node.url}`);
    } finally {
      stream.close();
    }
    const refused = await call('GET', `${node.url}/instances/${other}/events`, { headers: { ...as('bob'), accept: 'text/event-stream', 'last-event-id': '1' } });
    assert.is(refused.status, 404);
  }
});

test.run();
