import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { openSse } from '../sse/client.js';
import { LAPSED } from './link-support.js';
import { assertNoDuplicates, converged, eventsOf, instancesOf, register, startNodes, statusesOf, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
const running: Daemon[] = [];

test.before(async () => {
  fleet = await Fleet.start();
});

test.after.each(async () => {
  await stopAll(running.splice(0));
  await redis?.stop();
  redis = undefined;
});

test.after(async () => {
  await fleet?.close();
});

const lines = (node: Daemon, pattern: RegExp) => node.logs().filter((line) => pattern.test(line));
const post = (node: Daemon, k: number) => call('POST', `${node.url}/instances`, { json: fleet!.registration(k) });

/**
 * While Redis is away: reads and streams are served, writes get 503 with Retry-After and the JSON
 * error body, and no instance is checked anywhere (no node can renew its place, so each steps
 * back: none can tell an outage of everyone from being cut off alone, when the others take its
 * instances over); once back, a status that changed meanwhile is written, and registrations work
 * again.
 */
async function outage(kind: 'shutdown' | 'hang'): Promise<void> {
  redis = await startRedis(redisServer, { persistent: true });
  // Debug: each failed reconnection attempt (one a second) is a line to wait for.
  const nodes = await startNodes(2, { redisUrl: redis.url, config: { 'log-level': 'debug' } });
  running.push(...nodes);
  const ids = new Map<number, string>();
  for (let k = 1; k <= 10; k += 1) ids.set(k, await register(nodes[k % 2]!, fleet!.registration(k)));
  await eventually(async () => (await instancesOf(nodes[0]!)).every((i) => i.statusInfo.status === 'UP'), 'every instance UP');
  const stream = await openSse(`${nodes[0]!.url}/instances/events`);
  try {
    if (kind === 'shutdown') await redis.stop();
    else redis.signal('SIGSTOP');
    await eventually(() => nodes.every((node) => lines(node, /Redis is unreachable/).length > 0), 'both nodes noticing');
    const refused = await post(nodes[1]!, 50);
    assert.is(refused.status, 503);
    assert.is(refused.headers.get('retry-after'), '5');
    assert.match((refused.json as { message: string }).message, /the registry cannot take writes now/);
    assert.is((refused.json as { status: number }).status, 503);
    assert.is((await call('GET', `${nodes[0]!.url}/instances`)).status, 200);
    assert.is((await instancesOf(nodes[1]!)).length, 10);
    // A load balancer can prefer nodes that reach Redis.
    const unready = await call('GET', `${nodes[0]!.url}/health/readiness`);
    assert.is(unready.status, 503);
    assert.match(unready.text, /Redis unreachable/);
    assert.match((await call('GET', `${nodes[0]!.url}/metrics`)).text, /^vigil_cluster_redis_up 0$/m);
    // Every node steps back, and checks stop everywhere: a change now is seen once Redis is back.
    await eventually(() => nodes.every((node) => lines(node, LAPSED).length > 0), 'every node stepping back', 10_000);
    fleet!.setStatus(3, 'DOWN');
    const retries = () => nodes.map((node) => lines(node, /Redis still unreachable/).length);
    const before = retries();
    await eventually(() => retries().every((count, index) => count > before[index]!), 'a failed reconnection on every node', 10_000);
    const quiet = Date.now();
    const after = retries();
    // Two more attempts on every node (one a second): a few status intervals for a check to show, were there any.
    await eventually(() => retries().every((count, index) => count >= after[index]! + 2), 'two more failed reconnections on every node', 10_000);
    assert.equal([...fleet!.checksSince(quiet)].filter(([, checks]) => checks.length > 0).map(([k, checks]) => `${k}: ${checks.map((c) => c.node).join()}`), [],
      'no instance checked while no node reaches Redis');
    assert.not.ok(statusesOf(await eventsOf(nodes[0]!), ids.get(3)!).includes('DOWN'));
    if (kind === 'shutdown') redis = await redis.restart();
    else redis.signal('SIGCONT');
    await eventually(() => nodes.every((node) => lines(node, /Redis is reachable again/).length > 0), 'both nodes back', 15_000);
    await eventually(async () => statusesOf(await eventsOf(nodes[1]!), ids.get(3)!).includes('DOWN'), 'the change written after the outage');
    await stream.waitFor((m) => m.json.instance === ids.get(3) && m.json.statusInfo?.status === 'DOWN', 'the change on the stream that stayed open');
    assert.is((await post(nodes[1]!, 50)).status, 201);
    assert.is((await call('GET', `${nodes[0]!.url}/health/readiness`)).status, 200);
    const events = await converged(nodes);
    assertNoDuplicates(events);
    assert.equal(statusesOf(events, ids.get(3)!), ['UP', 'DOWN']);
  } finally {
    stream.close();
    fleet!.setStatus(3, 'UP');
  }
}

test('Redis shut down and restarted: reads served, writes 503, the change made meanwhile written once it is back', () => outage('shutdown'));

test('Redis hung (SIGSTOP): commands time out instead of hanging the node; the same recovery', () => outage('hang'));

test('Redis restarted empty: every node notices and rebuilds the registry from what it checked', async () => {
  redis = await startRedis(redisServer);
  const nodes = await startNodes(3, { redisUrl: redis.url });
  running.push(...nodes);
  const ids: string[] = [];
  for (let k = 301; k <= 315; k += 1) ids.push(await register(nodes[k % 3]!, fleet!.registration(k)));
  await eventually(async () => (await instancesOf(nodes[0]!)).every((i) => i.statusInfo.status === 'UP'), 'every instance UP');
  const before = await eventsOf(nodes[0]!);
  await redis.stop();
  redis = await redis.restart({ empty: true });
  await eventually(() => nodes.every((node) => lines(node, /Redis lost its data|Redis holds another history/).length > 0), 'every node noticing the lost history', 15_000);
  await eventually(async () => {
    const lists = await Promise.all(nodes.map((node) => instancesOf(node)));
    return lists.every((list) => list.length === ids.length && list.every((i) => i.statusInfo.status === 'UP'));
  }, 'every instance back and UP on every node', 15_000);
  // Two ways to notice (a heartbeat, a refused write) and a reload each: a guard, not a timing.
  const events = await converged(nodes, 20_000);
  assertNoDuplicates(events);
  for (const id of ids) assert.equal(events.filter((e) => e.instance === id && e.type === 'REGISTERED').length, 1, `${id} registered once in the new history`);
  assert.ok(before.length > 0 && JSON.stringify(events) !== JSON.stringify(before), 'a new history');
});

test('on-outage: exit stops the node (exit code 1) when Redis goes away, for an orchestrator to restart it', async () => {
  redis = await startRedis(redisServer);
  const [node] = await startNodes(1, { redisUrl: redis.url, cluster: { 'on-outage': 'exit' } });
  running.push(node!);
  await redis.stop();
  const exited = await node!.exited;
  assert.is(exited.code, 1);
  assert.ok(lines(node!, /asks the daemon to exit: Redis is unreachable/).length > 0);
});

test.run();
