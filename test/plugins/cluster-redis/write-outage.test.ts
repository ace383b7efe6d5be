import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually, type Reply } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { PLUGINS, assertNoDuplicates, converged, register, startNodes, stopAll } from './support.js';

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

/** Log lines printed since `mark` (a count of lines) that match `pattern`. */
const since = (node: Daemon, mark: number, pattern: RegExp) => node.logs().slice(mark).filter((line) => pattern.test(line));
/** A change of the live set as a node logs it: `cluster: 2 live node(s); left: n3`. */
const MEMBERSHIP_CHANGE = /cluster: \d+ live node\(s\)/;
/** What node-redis's own errors read like: no operator should have to decode these. */
const CLIENT_JARGON = /Disconnects client|The client is closed|Socket closed unexpectedly|ClientClosedError|SocketClosedUnexpectedlyError|DisconnectsClientError/;

/** A refused write: 503, Retry-After, and the contract's JSON error naming Redis. */
function assertRefused(reply: Reply, what: string): void {
  assert.is(reply.status, 503, `${what}: ${reply.status} ${reply.text}`);
  assert.match(reply.headers.get('retry-after') ?? '', /^\d+$/, `${what}: Retry-After`);
  const body = reply.json as { status: number; error: string; message: string; path: string };
  assert.is(body.status, 503, what);
  assert.is(body.error, 'Service Unavailable', what);
  assert.match(body.message, /Redis/, `${what}: the error names Redis: ${body.message}`);
  assert.type(body.path, 'string');
}

/**
 * Three nodes on one Redis; Redis hangs (SIGSTOP) or dies (SIGKILL). Every write sent while it
 * is away answers 503, whether it was refused at once, timed out, or was still waiting for an
 * answer when the node made its connections afresh; every route that writes through the
 * registry or the shared state does; once Redis is back no live node is declared dead (no
 * `left`/`joined`), and the heartbeat's trouble was told in words.
 */
async function writesDuringOutage(kind: 'hang' | 'kill'): Promise<void> {
  redis = await startRedis(redisServer, { persistent: true });
  // A command timeout longer than the link's pause between reconnection attempts (1 s): a write
  // sent a second or more into the hang is still waiting when the node reconnects, and is cut
  // off by it rather than by its own timeout (the path that answered 500).
  // A TTL of 2 s: every node's entry expires during the outage (a hang lasts at least one command
  // timeout; a dead Redis is kept down for several reconnection attempts), while a node slowed
  // by a busy machine still beats in time. Debug lines show each failed reconnection attempt.
  const nodes = await startNodes(3, {
    redisUrl: redis.url, plugins: [...PLUGINS, 'notify'], config: { 'log-level': 'debug' },
    cluster: { 'command-timeout': '3s', 'heartbeat-ttl': '2s' },
  });
  running.push(...nodes);
  const [first] = nodes as [Daemon, Daemon, Daemon];
  const victim = await register(first, fleet!.registration(701, 'victim'));
  const filter = await call('POST', `${first.url}/notifications/filters?applicationName=victim`);
  assert.is(filter.status, 200, filter.text);
  const filterId = (filter.json as { id: string }).id;
  await converged(nodes);
  // Each node sees the three before the outage (the last one to start may be news to the others for a beat).
  await eventually(async () => (await Promise.all(nodes.map((node) => call('GET', `${node.url}/metrics`)))).every((reply) => /^vigil_cluster_nodes 3$/m.test(reply.text)), 'every node seeing three nodes');
  const marks = nodes.map((node) => node.logs().length);
  const noticed = (node: Daemon, index: number) => since(node, marks[index]!, /Redis is unreachable/).length > 0;

  redis.signal(kind === 'hang' ? 'SIGSTOP' : 'SIGKILL');
  // Registrations keep coming (as SBA clients' do) from the moment Redis goes until the node has
  // noticed, so some are refused at once, some time out and some are cut off by the reconnection.
  const writes: Promise<Reply>[] = [];
  for (let k = 710; !noticed(first, 0); k += 1) {
    writes.push(call('POST', `${first.url}/instances`, { json: fleet!.registration(k, 'late') }));
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await eventually(() => nodes.every(noticed), 'every node noticing', 10_000);
  for (const [index, reply] of (await Promise.all(writes)).entries()) assertRefused(reply, `registration ${index + 1} of ${writes.length}`);

  for (const node of nodes) {
    assertRefused(await call('POST', `${node.url}/instances`, { json: fleet!.registration(799, 'late') }), 'POST /instances');
    assertRefused(await call('DELETE', `${node.url}/instances/${victim}`), 'DELETE /instances/{id}');
    assertRefused(await call('DELETE', `${node.url}/applications/victim`), 'DELETE /applications/{name}');
    assertRefused(await call('POST', `${node.url}/notifications/filters?applicationName=other`), 'POST /notifications/filters');
    assertRefused(await call('DELETE', `${node.url}/notifications/filters/${filterId}`), 'DELETE /notifications/filters/{id}');
    // Reads go on from the node's copy; a read of what only Redis holds says so.
    assert.is((await call('GET', `${node.url}/instances/${victim}`)).status, 200);
    const filters = await call('GET', `${node.url}/notifications/filters`);
    assertRefused(filters, 'GET /notifications/filters');
    assert.match((filters.json as { message: string }).message, /^the shared state cannot be read now: Redis is unreachable/);
  }

  if (kind === 'hang') {
    redis.signal('SIGCONT');
  } else {
    // Away for at least three reconnection attempts (one a second) on every node: longer than the TTL.
    await eventually(() => nodes.every((node, index) => since(node, marks[index]!, /Redis still unreachable/).length >= 3), 'three failed reconnections on every node', 15_000);
    redis = await redis.restart();
  }
  await eventually(() => nodes.every((node, index) => since(node, marks[index]!, /Redis is reachable again/).length > 0), 'every node back', 20_000);
  // Every node first keeps the cluster it knew while the others come back, then takes Redis's
  // view again; a node that declared a live peer dead meanwhile would have logged it by then.
  const settled = (node: Daemon, index: number) => since(node, marks[index]!, /membership settled after the Redis outage/).length > 0;
  const flapped = (node: Daemon, index: number) => since(node, marks[index]!, MEMBERSHIP_CHANGE).length > 0;
  await eventually(() => nodes.every(settled) || nodes.some(flapped), 'every node settling its membership', 20_000);
  nodes.forEach((node, index) => {
    assert.equal(since(node, marks[index]!, MEMBERSHIP_CHANGE), [], `no node left or joined on ${node.url}`);
    assert.equal(since(node, marks[index]!, CLIENT_JARGON), [], `every outage line in words on ${node.url}`);
    assert.equal(since(node, marks[index]!, /heartbeat failed/), [], `no bare "heartbeat failed" on ${node.url}`);
    assert.is(since(node, marks[index]!, /this node could not renew its place in the cluster: Redis is unreachable \(redis:\/\/127\.0\.0\.1:\d+\/?\)/).length, 1,
      `the heartbeat's trouble told once, in words, on ${node.url}`);
  });

  // Writes work again, and nothing was recorded twice.
  assert.is((await call('POST', `${first.url}/instances`, { json: fleet!.registration(799, 'late') })).status, 201);
  assert.is((await call('DELETE', `${nodes[1]!.url}/notifications/filters/${filterId}`)).status, 200);
  assertNoDuplicates(await converged(nodes));
}

test('Redis hung (SIGSTOP) under a stream of writes: every write and every write route answers 503 naming Redis, never 500; no membership flap after SIGCONT', () => writesDuringOutage('hang'));

test('Redis killed (refused connections) under a stream of writes: the same 503s; no membership flap once it is back', () => writesDuringOutage('kill'));

test.run();
