import { fileURLToPath } from 'node:url';
import * as assert from 'uvu/assert';
import { startDaemon, type Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { PLUGINS, assertNoDuplicates, converged, register, startNodes, statusesOf, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
const running: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
});

test.after.each(async () => {
  await stopAll(running.splice(0));
  // A fresh Redis for the next scenario: nothing of this one leaks into it.
  await redis?.stop();
  redis = await redis!.restart({ empty: true });
});

test.after(async () => {
  await fleet?.close();
  await redis?.stop();
});

/** Registers instances `from`..`to` and waits until each was checked; returns their ids and who checks them. */
async function registerChecked(nodes: readonly Daemon[], from: number, to: number): Promise<{ ids: Map<number, string>; owners: Map<number, string> }> {
  const ids = new Map<number, string>();
  for (let k = from; k <= to; k += 1) ids.set(k, await register(nodes[k % nodes.length]!, fleet!.registration(k)));
  const since = Date.now();
  await eventually(() => [...ids.keys()].every((k) => fleet!.checksSince(since).get(k)?.length), 'a check of every instance');
  const owners = new Map([...ids.keys()].map((k) => [k, fleet!.checksSince(since).get(k)!.at(-1)!.node]));
  return { ids, owners };
}

test('kill -9 of a node: the others take its instances over, nothing is lost', async () => {
  const nodes = await startNodes(3, { redisUrl: redis!.url });
  running.push(...nodes);
  const { ids, owners } = await registerChecked(nodes, 1, 30);
  const orphans = [...owners].filter(([, node]) => node === 'n2').map(([k]) => k);
  assert.ok(orphans.length > 0, 'n2 checked some instances');
  nodes[1]!.signal('SIGKILL');
  await nodes[1]!.exited;
  const killedAt = Date.now();
  await eventually(() => orphans.every((k) => fleet!.checksSince(killedAt).get(k)?.some((check) => check.node !== 'n2')), 'every instance of n2 checked by a survivor');
  // A change of one of its instances is recorded once, by a survivor.
  fleet!.setStatus(orphans[0]!, 'DOWN');
  const survivors = [nodes[0]!, nodes[2]!];
  await eventually(async () => statusesOf(await converged(survivors), ids.get(orphans[0]!)!).includes('DOWN'), 'the change recorded');
  const events = await converged(survivors);
  assertNoDuplicates(events);
  assert.equal(statusesOf(events, ids.get(orphans[0]!)!), ['UP', 'DOWN']);
  fleet!.setStatus(orphans[0]!, 'UP');
});

test('SIGTERM hands over at once; the node restarted under its id gets the same instances back', async () => {
  const nodes = await startNodes(3, { redisUrl: redis!.url });
  running.push(...nodes);
  const { owners } = await registerChecked(nodes, 101, 130);
  const stopped = await nodes[2]!.stop();
  assert.is(stopped.code, 0);
  const mine = [...owners].filter(([, node]) => node === 'n3').map(([k]) => k);
  await eventually(() => nodes[0]!.logs().some((line) => /cluster: 2 live node\(s\); left: n3/.test(line)), 'n1 sees n3 leave');
  const leftAt = Date.now();
  await eventually(() => mine.every((k) => fleet!.checksSince(leftAt).get(k)?.some((check) => check.node !== 'n3')), 'n3\'s instances checked by the others');
  const back = await startDaemon({}, { file: nodes[2]!.file });
  running.push(back);
  const backAt = Date.now();
  await eventually(() => mine.every((k) => fleet!.checksSince(backAt).get(k)?.at(-1)?.node === 'n3'), 'n3 checking its instances again', 15_000);
  const events = await converged([nodes[0]!, nodes[1]!, back]);
  assertNoDuplicates(events);
});

test('a lease holder paused past its lease (SIGSTOP) cannot apply its stale decision when it wakes', async () => {
  const plugin = fileURLToPath(new URL('./stale-writer-plugin.js', import.meta.url));
  const nodes = await startNodes(3, { redisUrl: redis!.url, plugins: [...PLUGINS, plugin] });
  running.push(...nodes);
  const holding = (node: Daemon) => node.logs().filter((line) => line.includes('holding the lease "stale-writer"'));
  const holder = await eventually(() => nodes.find((node) => holding(node).length > 0), 'a holder of the lease');
  const victim = await register(nodes[0]!, fleet!.registration(200, 'victim'));
  await eventually(async () => (await call('GET', `${holder.url}/instances/${victim}`)).status === 200, 'the victim on the holder');
  const others = nodes.filter((node) => node !== holder);
  const before = others.map((node) => holding(node).length);
  holder.signal('SIGSTOP');
  await eventually(() => others.some((node, index) => holding(node).length > before[index]!), 'another node granted the lease', 10_000);
  holder.signal('SIGCONT');
  const outcome = await eventually(() => holder.logs().find((line) => line.includes('stale-writer: ')), 'the woken holder acting');
  assert.match(outcome, /stale-writer: refused \(StaleFenceError\)/, outcome);
  for (const node of nodes) assert.is((await call('GET', `${node.url}/instances/${victim}`)).status, 200, 'the victim is still registered');
  assertNoDuplicates(await converged(nodes));
});

test.run();
