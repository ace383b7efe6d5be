import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { openSse, type SseClient } from '../sse/client.js';
import { assertNoDuplicates, converged, register, startNodes, stopAll } from './support.js';

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

async function heldOf(node: Daemon): Promise<number> {
  const metrics = (await call('GET', `${node.url}/metrics`)).text;
  return Number(/^vigil_events_held (\d+)$/m.exec(metrics)?.[1]);
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
  // The list and the held counts from one quiet moment: a check may record a status between two reads.
  let events = await converged(nodes);
  let held = await Promise.all(nodes.map(heldOf));
  for (let again = await converged(nodes); again.length !== events.length; again = await converged(nodes)) {
    events = again;
    held = await Promise.all(nodes.map(heldOf));
  }
  assertNoDuplicates(events);
  for (const id of ids.values()) assert.ok(events.some((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED'), `the history of ${id} is listed`);
  for (const [index, count] of held.entries()) assert.ok(count < events.length, `node ${index + 1} holds ${count} of ${events.length} events`);
  // Each history is held by the node that checked the instance when it registered: once in all.
  assert.is(held.reduce((sum, count) => sum + count, 0), events.length, `held ${held.join(' + ')} vs ${events.length} listed`);
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
