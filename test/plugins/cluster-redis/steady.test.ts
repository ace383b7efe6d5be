import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { openSse } from '../sse/client.js';
import { assertNoDuplicates, converged, eventsOf, register, startNodes, statusesOf, stopAll, type WireEvent } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let nodes: Daemon[] = [];
const ids = new Map<number, string>();
const INSTANCES = 30;

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  nodes = await startNodes(3, { redisUrl: redis.url });
  // Registered through every node in turn: any node takes writes.
  for (let k = 1; k <= INSTANCES; k += 1) ids.set(k, await register(nodes[k % 3]!, fleet.registration(k)));
});

test.after(async () => {
  await stopAll(nodes);
  await fleet?.close();
  await redis?.stop();
});

test('steady state: each instance is checked by exactly one node, every node holds the same history', async () => {
  await eventually(async () => (await call('GET', `${nodes[0]!.url}/instances`)).text.split('"UP"').length - 1 === INSTANCES, 'every instance UP');
  const since = Date.now();
  await eventually(() => [...ids.keys()].every((k) => fleet!.checksSince(since).get(k)!.length >= 4), 'four checks of every instance');
  const owners = new Map<string, number>();
  for (const [k, checks] of fleet!.checksSince(since)) {
    const by = new Set(checks.map((check) => check.node));
    assert.is(by.size, 1, `instance ${k} was checked by ${[...by].join(' and ')}`);
    const [node] = by;
    owners.set(node!, (owners.get(node!) ?? 0) + 1);
  }
  assert.equal([...owners.keys()].sort(), ['n1', 'n2', 'n3'], 'the work is spread over every node');
  const events = await converged(nodes);
  assertNoDuplicates(events);
  for (const id of ids.values()) assert.equal(statusesOf(events, id), ['UP'], `one STATUS_CHANGED for ${id}`);
  // Each node's metrics: three live nodes, the instances it checks, Redis up.
  let owned = 0;
  for (const node of nodes) {
    const metrics = (await call('GET', `${node.url}/metrics`)).text;
    assert.match(metrics, /^vigil_cluster_nodes 3$/m);
    assert.match(metrics, /^vigil_cluster_redis_up 1$/m);
    owned += Number(/^vigil_cluster_owned_instances (\d+)$/m.exec(metrics)?.[1]);
  }
  assert.is(owned, INSTANCES, 'every instance owned by exactly one node');
});

test('a registration made on one node is read on another; a stream on one node sees checks made on another', async () => {
  const id = await register(nodes[0]!, fleet!.registration(100, 'late'));
  await eventually(async () => (await call('GET', `${nodes[2]!.url}/instances/${id}`)).status === 200, 'the instance on n3');
  await eventually(() => fleet!.checksOf(100).length > 0, 'a check of the new instance');
  const owner = fleet!.checksOf(100).at(-1)!.node;
  const watcher = nodes.find((_node, index) => `n${index + 1}` !== owner)!;
  const stream = await openSse(`${watcher.url}/instances/events`);
  try {
    fleet!.setStatus(100, 'DOWN');
    const seen = await stream.waitFor((m) => m.json.instance === id && m.json.statusInfo?.status === 'DOWN', `DOWN of ${id} on a node that did not check it`);
    assert.is(seen.json.type, 'STATUS_CHANGED');
  } finally {
    stream.close();
    fleet!.setStatus(100, 'UP');
  }
  const events = await converged(nodes);
  assertNoDuplicates(events);
});

test('a stream resumed on another node gets exactly what it missed: no gap, no duplicate', async () => {
  const first = await openSse(`${nodes[0]!.url}/instances/events`);
  let lastId: string;
  try {
    fleet!.setStatus(1, 'DOWN');
    await first.waitFor((m) => m.json.instance === ids.get(1) && m.json.statusInfo?.status === 'DOWN', 'the first change');
    lastId = first.messages.at(-1)!.id!;
  } finally {
    first.close();
  }
  // Missed while away: changes checked by whichever nodes own these instances.
  for (const k of [2, 3, 4, 5]) fleet!.setStatus(k, 'OUT_OF_SERVICE');
  fleet!.setStatus(1, 'UP');
  const isMissed = (e: WireEvent) => e.type === 'STATUS_CHANGED' && ((e.instance === ids.get(1) && e.statusInfo?.status === 'UP' && e.version > 1)
    || [2, 3, 4, 5].some((k) => e.instance === ids.get(k) && e.statusInfo?.status === 'OUT_OF_SERVICE'));
  await eventually(async () => (await eventsOf(nodes[0]!)).filter(isMissed).length === 5, 'the five changes checked');
  const events = await converged(nodes);
  assertNoDuplicates(events);
  const missed = events.filter(isMissed);
  const resumed = await openSse(`${nodes[2]!.url}/instances/events`, { 'last-event-id': lastId! });
  const replay = await openSse(`${nodes[1]!.url}/instances/events`, { 'last-event-id': '0' });
  try {
    await resumed.until(() => missed.every((e) => resumed.messages.some((m) => m.json.instance === e.instance && m.json.version === e.version)), 'the missed changes');
    await replay.until(() => replay.messages.length === events.length, 'the whole history on another node');
    const expected = replay.messages.filter((m) => BigInt(m.id!) > BigInt(lastId!)).map((m) => `${m.id} ${m.json.instance}@${m.json.version}`);
    assert.equal(resumed.messages.map((m) => `${m.id} ${m.json.instance}@${m.json.version}`), expected);
  } finally {
    resumed.close();
    replay.close();
    for (const k of [2, 3, 4, 5]) fleet!.setStatus(k, 'UP');
  }
});

test('POST /applications on one node reaches every node: each detects again the instances it owns', async () => {
  const since = Date.now();
  const reply = await call('POST', `${nodes[0]!.url}/applications`);
  assert.is(reply.status, 200);
  const all = [...ids.keys()];
  await eventually(() => all.every((k) => fleet!.detectionsOf(k).some((seen) => seen.at >= since)), 'every instance detected again');
  const by = new Set(all.flatMap((k) => fleet!.detectionsOf(k).filter((seen) => seen.at >= since).map((seen) => seen.node)));
  assert.equal([...by].sort(), ['n1', 'n2', 'n3'], 'by its owner, on every node');
  for (const k of all) {
    const owner = fleet!.checksOf(k).at(-1)!.node;
    assert.ok(fleet!.detectionsOf(k).filter((seen) => seen.at >= since).every((seen) => seen.node === owner), `instance ${k} detected by its owner only`);
  }
});

test.run();
