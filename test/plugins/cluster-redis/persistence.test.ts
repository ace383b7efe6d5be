import * as assert from 'uvu/assert';
import { startDaemon, type Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { eventually } from '../../support/http.js';
import { startRedis, startSentinel, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { assertNoDuplicates, converged, eventsOf, instancesOf, register, startNode, startNodes, statusesOf, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');
const sentinelBinary = requireBinary('redis-sentinel', 'apt-get install redis-sentinel');

const processes: (RedisProcess | Daemon)[] = [];
let fleet: Fleet | undefined;

test.before(async () => {
  fleet = await Fleet.start();
});

test.after.each(async () => {
  await Promise.all(processes.splice(0).reverse().map((process) => process.stop()));
});

test.after(async () => {
  await fleet?.close();
});

test('with AOF, stopping every node and Redis and starting them again keeps instances, events and versions; monitoring resumes', async () => {
  let redis = await startRedis(redisServer, { persistent: true });
  processes.push(redis);
  const nodes = await startNodes(3, { redisUrl: redis.url });
  const ids: string[] = [];
  for (let k = 401; k <= 412; k += 1) ids.push(await register(nodes[k % 3]!, fleet!.registration(k)));
  fleet!.setStatus(405, 'DOWN');
  await eventually(async () => (await instancesOf(nodes[0]!)).filter((i) => i.statusInfo.status !== 'UNKNOWN').length === ids.length, 'every instance checked');
  await eventually(async () => statusesOf(await eventsOf(nodes[0]!), ids[4]!).includes('DOWN'), 'the DOWN recorded');
  // The info read follows the first check: until every instance's is recorded, the nodes may agree
  // on a history that still grows before they stop.
  await eventually(async () => {
    const events = await eventsOf(nodes[0]!);
    return ids.every((id) => events.some((event) => event.instance === id && event.type === 'INFO_CHANGED'));
  }, 'the info of every instance read');
  const before = await converged(nodes);
  const versionsBefore = (await instancesOf(nodes[0]!)).map((i) => [i.id, i.version]).sort();
  const files = nodes.map((node) => node.file);
  await stopAll(nodes);
  await redis.stop();
  processes.splice(0);

  redis = await redis.restart();
  processes.push(redis);
  const again: Daemon[] = [];
  for (const file of files) again.push(await startDaemon({}, { file }));
  processes.push(...again);
  for (const node of again) {
    assert.equal(await eventsOf(node), before, 'the same events on every restarted node');
    assert.equal((await instancesOf(node)).map((i) => [i.id, i.version]).sort(), versionsBefore, 'the same versions');
  }
  fleet!.setStatus(405, 'UP');
  await eventually(async () => statusesOf(await eventsOf(again[0]!), ids[4]!).at(-1) === 'UP', 'monitoring resumed: the recovery recorded');
  assertNoDuplicates(await converged(again));
});

sentinelBinary.test('a Sentinel-managed Redis: a failover of the primary is survived like an outage', async () => {
  const primary = await startRedis(redisServer);
  const replica = await startRedis(redisServer, { args: ['--replicaof', '127.0.0.1', String(primary.port)] });
  const sentinel = await startSentinel(sentinelBinary.path, primary.port, 'vigil-master');
  processes.push(primary, replica, sentinel);
  const config = { 'master-name': 'vigil-master', nodes: [`127.0.0.1:${sentinel.port}`] };
  const nodes = [await startNode('n1', { sentinel: config }), await startNode('n2', { sentinel: config })];
  processes.push(...nodes);
  const first = await register(nodes[0]!, fleet!.registration(501));
  await eventually(async () => (await instancesOf(nodes[1]!)).some((i) => i.id === first && i.statusInfo.status === 'UP'), 'registered and checked');
  // The replica must hold what the primary holds before the primary goes.
  await eventually(async () => (await fetchInfo(replica)).includes('master_link_status:up'), 'the replica in sync');
  primary.signal('SIGKILL');
  await eventually(() => nodes.every((node) => node.logs().some((line) => /Redis is reachable again/.test(line))), 'both nodes on the new primary', 30_000);
  const second = await register(nodes[1]!, fleet!.registration(502));
  await eventually(async () => (await instancesOf(nodes[0]!)).some((i) => i.id === second && i.statusInfo.status === 'UP'), 'a registration after the failover, seen everywhere');
  const events = await converged(nodes);
  assertNoDuplicates(events);
  assert.ok(events.some((e) => e.instance === first && e.type === 'REGISTERED'), 'the history from before the failover kept');
});

/** INFO replication of a Redis, through its own port (the test needs no client of its own). */
async function fetchInfo(server: RedisProcess): Promise<string> {
  const { createConnection } = await import('node:net');
  return new Promise((resolve, reject) => {
    const socket = createConnection(server.port, '127.0.0.1', () => socket.write('INFO replication\r\n'));
    let text = '';
    socket.on('data', (chunk) => {
      text += chunk.toString();
      if (text.includes('master_link_status') || text.includes('role:master')) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('error', reject);
  });
}

test.run();
