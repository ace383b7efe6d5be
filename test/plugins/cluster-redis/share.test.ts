import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { openSse, type SseClient } from '../sse/client.js';
import { assertNoDuplicates, converged, eventsOf, register, startNode, startNodes, stopAll, type WireEvent } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let nodes: Daemon[] = [];
const ids = new Map<number, string>();
const INSTANCES = 24;
/** Far fewer than the events of the fleet: streams resumed further back read Redis. */
const RECENT = 5;

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  nodes = await startNodes(3, { redisUrl: redis.url, cluster: { 'recent-events': RECENT } });
  for (let k = 1; k <= INSTANCES; k += 1) ids.set(k, await register(nodes[k % 3]!, fleet.registration(k)));
  await eventually(async () => (await call('GET', `${nodes[0]!.url}/instances`)).text.split('"UP"').length - 1 === INSTANCES, 'every instance UP');
  await eventually(async () => {
    const events = (await call('GET', `${nodes[0]!.url}/instances/events`)).json as { instance: string; type: string }[];
    return [...ids.values()].every((id) => events.some((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED'));
  }, 'every instance detected');
});

test.after(async () => {
  await stopAll(nodes);
  await fleet?.close();
  await redis?.stop();
});

/** What one node holds in memory: events, whole histories, and the instances it checks. */
interface Held {
  readonly events: number;
  readonly histories: number;
  readonly owned: number;
}

async function heldOf(node: Daemon): Promise<Held> {
  const metrics = (await call('GET', `${node.url}/metrics`)).text;
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(metrics)?.[1]);
  return { events: gauge('vigil_events_held'), histories: gauge('vigil_cluster_held_histories'), owned: gauge('vigil_cluster_owned_instances') };
}

const sum = (counts: readonly number[]) => counts.reduce((total, count) => total + count, 0);

/**
 * Waits until every node lists the same events and each history is held by exactly one node: the
 * one that checks the instance (a node holds the histories of the instances it checks, and only
 * those). Ownership moves as nodes join and leave, and a node may see the cluster a heartbeat late,
 * so this is awaited; a history held twice (or by none) for good fails it. The list and the counts
 * are read in one quiet moment: a check may record a status between two reads.
 */
async function heldOnce(running: readonly Daemon[], instances: number): Promise<{ events: WireEvent[]; held: Held[] }> {
  let seen = 'nothing read yet';
  return eventually(async () => {
    const events = await converged(running);
    const held = await Promise.all(running.map(heldOf));
    if ((await converged(running)).length !== events.length) return undefined;
    seen = `${events.length} events listed; held per node: ${held.map((h) => `${h.events} events, ${h.histories} histories, ${h.owned} owned`).join('; ')}`;
    const once = sum(held.map((h) => h.events)) === events.length && sum(held.map((h) => h.histories)) === instances
      && sum(held.map((h) => h.owned)) === instances && held.every((h) => h.histories === h.owned);
    return once ? { events, held } : undefined;
  }, 'each history held by exactly one node', 15_000).catch((error: Error) => {
    throw new Error(`${error.message}: ${seen}`);
  });
}

async function seesNodes(node: Daemon): Promise<number> {
  return Number(/^vigil_cluster_nodes (\d+)$/m.exec((await call('GET', `${node.url}/metrics`)).text)?.[1]);
}

/** Every message a stream replays with this Last-Event-ID, as `id instance@version`. */
async function replayed(url: string, lastEventId: string, count: number): Promise<string[]> {
  const stream: SseClient = await openSse(url, { 'last-event-id': lastEventId });
  try {
    await stream.until(() => stream.messages.length >= count, `${count} replayed events from ${url}`);
    return stream.messages.map((m) => `${m.id} ${m.json.instance}@${m.json.version}`);
  } finally {
    stream.close();
  }
}

test('each node holds only the histories of the instances it checks, yet every node lists every event', async () => {
  const { events, held } = await heldOnce(nodes, INSTANCES);
  assertNoDuplicates(events);
  for (const id of ids.values()) assert.ok(events.some((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED'), `the history of ${id} is listed`);
  for (const [index, { events: count }] of held.entries()) assert.ok(count < events.length, `node ${index + 1} holds ${count} of ${events.length} events`);
});

test('when a node joins and when it leaves, the histories move with the instances: the new owner holds each, the old one lets it go', async () => {
  const fourth = await startNode('n4', { redisUrl: redis!.url, cluster: { 'recent-events': RECENT } });
  try {
    await eventually(async () => (await Promise.all([...nodes, fourth].map(seesNodes))).every((count) => count === 4), 'every node seeing four nodes');
    const joined = await heldOnce([...nodes, fourth], INSTANCES);
    // A node that came after every registration checks its share, and holds those histories, read from Redis.
    assert.ok(joined.held[3]!.histories > 0 && joined.held[3]!.events > 0, `the new node holds ${joined.held[3]!.histories} histories`);
    assert.equal(await eventsOf(fourth), joined.events);
    // Each instance's history as the new node gives it, the ones it took up (held) and the others (from Redis).
    for (const id of ids.values()) {
      const history = joined.events.filter((e) => e.instance === id).map((e) => `${e.instance}@${e.version}`);
      assert.equal((await replayed(`${fourth.url}/instances/${id}/events`, '1', history.length)).map((line) => line.split(' ')[1]), history, `the history of ${id}`);
    }
  } finally {
    await fourth.stop();
  }
  await eventually(async () => (await Promise.all(nodes.map(seesNodes))).every((count) => count === 3), 'every node seeing three nodes again');
  const left = await heldOnce(nodes, INSTANCES);
  assertNoDuplicates(left.events);
});

test('a stream resumed from before the recent window replays the same events on every node, from Redis', async () => {
  const events = await converged(nodes);
  // An id from before this history replays everything (as in memory): read past the window.
  const everything = await Promise.all(nodes.map((node) => replayed(`${node.url}/instances/events`, '1', events.length)));
  for (const list of everything) assert.equal(list, everything[0]);
  assert.equal(everything[0]!.map((line) => line.split(' ')[1]), events.map((e) => `${e.instance}@${e.version}`));
  // Resumed from the third event: exactly the rest, on each node.
  const third = everything[0]![2]!.split(' ')[0]!;
  for (const node of nodes) assert.equal(await replayed(`${node.url}/instances/events`, third, events.length - 3), everything[0]!.slice(3));
});

test('an instance\'s stream resumed on a node that does not hold its history replays all of it', async () => {
  const events = await converged(nodes);
  const id = ids.get(1)!;
  const history = events.filter((e) => e.instance === id).map((e) => `${e.instance}@${e.version}`);
  assert.ok(history.length >= 3, 'registered, status and endpoints at least');
  for (const node of nodes) {
    const list = await replayed(`${node.url}/instances/${id}/events`, '1', history.length);
    assert.equal(list.map((line) => line.split(' ')[1]), history, `on ${node.url}`);
  }
});

test.run();
