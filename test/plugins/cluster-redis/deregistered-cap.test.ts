import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import { Keys } from '../../../plugins/cluster-redis/keys.js';
import type { Client } from '../../../plugins/cluster-redis/redis-link.js';
import { APPEND, INIT, TRIM_BATCH } from '../../../plugins/cluster-redis/scripts.js';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { assertNoDuplicates, converged, eventsOf, register, startNode, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

const CAP = 3;
const options = (redisUrl: string) => ({ redisUrl, plugins: ['rest-api', 'cluster-redis'], config: { 'event-store': { 'max-deregistered-instances': CAP } } });

let redis: RedisProcess | undefined;
let client: Client | undefined;
let fleet: Fleet | undefined;
const nodes: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  client = createClient({ url: redis.url }) as Client;
  await client.connect();
  fleet = await Fleet.start();
});

test.after(async () => {
  await stopAll(nodes);
  client?.destroy();
  await fleet?.close();
  await redis?.stop();
});

/** The instances an event list speaks of, in order of first appearance. */
const instancesIn = (events: readonly { instance: string }[]) => [...new Set(events.map((event) => event.instance))];

async function statuses(node: Daemon, method: string, ids: readonly string[], path = ''): Promise<number[]> {
  return Promise.all(ids.map(async (id) => (await call(method, `${node.url}/instances/${id}${path}`)).status));
}

test('the cap holds in Redis: the oldest deregistered histories go from Redis and from every node, and a node started later loads the same', async () => {
  nodes.push(await startNode('n1', options(redis!.url)), await startNode('n2', options(redis!.url)));
  const ids: string[] = [];
  for (let k = 1; k <= 6; k += 1) ids.push(await register(nodes[k % 2]!, fleet!.registration(k)));
  // Deregistered through both nodes in turn: the order of deregistration is the cluster's, not one node's.
  for (const [index, id] of ids.slice(0, 5).entries()) assert.is((await call('DELETE', `${nodes[index % 2]!.url}/instances/${id}`)).status, 204);
  const events = await converged(nodes);
  assertNoDuplicates(events);
  assert.equal(instancesIn(events), ids.slice(2));
  for (const node of nodes) assert.equal(await statuses(node, 'GET', ids, '/health-groups'), [404, 404, 200, 200, 200, 200]);
  assert.equal(await client!.sendCommand(['ZRANGE', new Keys('vigil:').deregistered, '0', '-1']), ids.slice(2, 5));
  assert.equal((await client!.hKeys('vigil:snap')).sort(), ids.slice(2).sort());
  assert.equal((await client!.hKeys('vigil:ver')).sort(), ids.slice(2).sort());
  assert.is(await client!.exists([`vigil:ev:${ids[0]}`, `vigil:ev:${ids[1]}`]), 0, 'the dropped histories are gone from Redis');

  // Re-registered, an instance leaves the deregistered ones; the next drop takes the oldest still deregistered.
  await register(nodes[0]!, fleet!.registration(3));
  assert.is((await call('DELETE', `${nodes[1]!.url}/instances/${ids[5]}`)).status, 204);
  const seventh = await register(nodes[1]!, fleet!.registration(7));
  assert.is((await call('DELETE', `${nodes[0]!.url}/instances/${seventh}`)).status, 204);
  const after = await converged(nodes);
  assert.equal(instancesIn(after).sort(), [ids[2]!, ids[4]!, ids[5]!, seventh].sort(), 'the fourth (deregistered longest ago) dropped; the re-registered third kept');
  for (const node of nodes) assert.equal(await statuses(node, 'GET', [ids[2]!, ids[3]!]), [200, 404]);

  nodes.push(await startNode('n3', options(redis!.url)));
  assert.equal(await eventsOf(nodes[2]!), after, 'a node started now loads exactly what the others hold');
  assert.equal(await statuses(nodes[2]!, 'DELETE', ids.slice(0, 2)), [404, 404]);
});

test('the append script works off a backlog (a lowered cap) at most TRIM_BATCH drops at a time, oldest first, each announced on the feed', async () => {
  const keys = new Keys('backlog:');
  const [incarnation] = await INIT.run<[string]>(client!, [keys.meta, keys.seq], ['inc', 1]);
  const append = (id: string, version: number, type: string, cap: number) => APPEND.run<number>(client!, [keys.events(id), keys.versions, keys.snapshots,
    keys.feed, keys.seq, keys.meta, keys.deregistered, keys.outbox, keys.outboxOn, keys.meta, keys.eventIndex],
  [id, version, 'k', '{}', '{}', 100, 100_000, type, 'UP', 'UP', 't', incarnation, '', type === 'DEREGISTERED' ? '+' : '-', cap, keys.events('')]);
  const total = TRIM_BATCH + 20;
  for (let n = 0; n < total; n += 1) {
    await append(`i${n}`, 0, 'REGISTERED', total);
    await append(`i${n}`, 1, 'DEREGISTERED', total);
  }
  assert.is(await client!.zCard(keys.deregistered), total);
  await append('last', 0, 'REGISTERED', 1);
  await append('last', 1, 'DEREGISTERED', 1);
  assert.is(await client!.zCard(keys.deregistered), total + 1 - TRIM_BATCH);
  assert.equal(await client!.sendCommand(['ZRANGE', keys.deregistered, '0', '0']), [`i${TRIM_BATCH}`], 'the oldest went first');
  const feed = await client!.sendCommand<[string, string[]][]>(['XRANGE', keys.feed, '-', '+']);
  const drops = feed.filter(([, fields]) => fields[0] === 'd').map(([, fields]) => fields[1]);
  assert.equal(drops, Array.from({ length: TRIM_BATCH }, (_, n) => `i${n}`));
  assert.equal(feed.at(-1 - TRIM_BATCH)![1].slice(2, 4), ['i', 'last'], 'the drops follow the DEREGISTERED that caused them');
  assert.is(await client!.exists(keys.events('i0')), 0);
  assert.is(await client!.hExists(keys.versions, 'i0'), 0);
  await append('again', 0, 'REGISTERED', 1);
  await append('again', 1, 'DEREGISTERED', 1);
  assert.equal(await client!.sendCommand(['ZRANGE', keys.deregistered, '0', '-1']), ['again'], 'the rest of the backlog (fewer than TRIM_BATCH) went with the next');
});

test.run();
