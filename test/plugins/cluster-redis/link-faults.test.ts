import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually, type Reply } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { LONG } from '../../hardening/support/settings.js';
import { Receiver } from '../notify/receiver.js';
import type { LinkFault } from './fault-proxy.js';
import {
  LAPSED, LINK, RENEWED, assertRefused, checkTrail, checkers, checksAfterHandover, linesSince, loggedAt, startProxiedNodes, type ProxiedCluster,
} from './link-support.js';
import { PLUGINS, assertNoDuplicates, converged, eventsOf, register, statusesOf, stopAll, withDiagnosis, type WireEvent } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let cluster: ProxiedCluster | undefined;
let receiver: Receiver | undefined;

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
});

test.before.each(async () => {
  receiver = await Receiver.start();
});

test.after.each(async () => {
  await stopAll(cluster?.nodes ?? []);
  await Promise.all((cluster?.proxies ?? []).map((proxy) => proxy.close()));
  cluster = undefined;
  await receiver?.close();
  // A fresh Redis for the next scenario: nothing of this one leaks into it.
  await redis?.stop();
  redis = await redis!.restart({ empty: true });
});

test.after(async () => {
  await fleet?.close();
  await redis?.stop();
});

const INSTANCES = 24;
const post = (node: Daemon, k: number, name = 'app') => call('POST', `${node.url}/instances`, { json: fleet!.registration(k, name) });

/** Three nodes through their own proxies, each seeing the other two; instances 1..24 registered and checked. */
async function formCluster(base: number): Promise<{ nodes: Daemon[]; ids: Map<number, string>; owners: Map<number, string> }> {
  cluster = await startProxiedNodes(3, redis!.port, {
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    config: { monitor: LINK.monitor, 'notify-webhook': { url: `${receiver!.url}/hook` } },
    cluster: LINK.cluster,
  });
  const { nodes } = cluster;
  await eventually(async () => (await Promise.all(nodes.map((node) => call('GET', `${node.url}/metrics`)))).every((reply) => /^vigil_cluster_nodes 3$/m.test(reply.text)), 'every node seeing three nodes', 15_000);
  const ids = new Map<number, string>();
  let since = 0;
  await withDiagnosis(nodes, async () => {
    for (let k = base + 1; k <= base + INSTANCES; k += 1) ids.set(k, await register(nodes[k % 3]!, fleet!.registration(k)));
    since = Date.now();
    // Two checks since: the owner of each is settled, not the node that happened to check it first.
    await eventually(() => [...ids.keys()].every((k) => (fleet!.checksSince(since).get(k)?.length ?? 0) >= 2), 'two checks of every instance', 15_000);
  });
  const owners = new Map([...ids.keys()].map((k) => [k, fleet!.checksSince(since).get(k)!.at(-1)!.node]));
  return { nodes, ids, owners };
}

/**
 * One node (n2) loses its link to Redis while it still answers HTTP, and gets it back. It refuses
 * writes with 503 once it notices, steps back (checks nothing) before the others take its
 * instances, which they do; no instance is checked by two nodes for longer than one interval,
 * either way; nothing is lost or recorded twice, and on heal it rejoins without a restart and
 * every node holds the same events.
 */
async function oneLinkFails(fault: Exclude<LinkFault, 'pass' | 'latency'>, base: number): Promise<void> {
  const { nodes, ids, owners } = await formCluster(base);
  const [n1, victim, n3] = nodes as [Daemon, Daemon, Daemon];
  const proxy = cluster!.proxies[1]!;
  const mine = [...owners].filter(([, node]) => node === 'n2').map(([k]) => k);
  const others = [...owners.keys()].filter((k) => !mine.includes(k));
  assert.ok(mine.length > 0 && others.length > 0, `n2 checks some instances, not all: ${JSON.stringify([...owners])}`);
  const mark = victim.logs().length;
  let survivors = new Map<number, string>();
  let lapsedAt = 0;
  let backAt = 0;
  const trail = () => mine.map((k) => `instance ${k}: ${checkTrail(fleet!, k, t0)}`).join('\n')
    + `\nlapsed at +${lapsedAt - t0}, back at +${backAt - t0}; proxy ${proxy.fault}, ${proxy.connections} connection(s)`;
  const t0 = Date.now();
  await withDiagnosis(nodes, async () => {
    await proxy.inject(fault);
    // Registrations keep coming to it until it noticed: each one answers 503 (some at once, some
    // after their command timed out or their connection was given up), never 201 or 500.
    const writes: Promise<Reply>[] = [];
    for (let k = base + 100; linesSince(victim, mark, /Redis is unreachable/).length === 0; k += 1) {
      if (Date.now() - t0 > 20_000) throw new Error('n2 never noticed it lost Redis');
      writes.push(post(victim, k, 'late'));
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    for (const [index, reply] of (await Promise.all(writes)).entries()) assertRefused(reply, `registration ${index + 1} of ${writes.length} sent to n2 as it lost Redis`);
    if (fault !== 'half-open') {
      assertRefused(await post(victim, base + 99, 'late'), 'a registration sent to n2 after it noticed');
      // Reads go on from its copy.
      assert.is((await call('GET', `${victim.url}/instances`)).status, 200);
    }
    // It steps back: its place lapses on its own clock, whatever it last knew of the others.
    lapsedAt = loggedAt(await eventually(() => linesSince(victim, mark, LAPSED)[0], 'n2 stepping back', 15_000));

    if (fault !== 'half-open') {
      // The others take its instances; writes to them work; a change of one of its instances is recorded once.
      survivors = await checkers(fleet!, mine, t0, 'every instance of n2 checked by another node', (check) => check.node !== 'n2');
      fleet!.setStatus(mine[0]!, 'DOWN');
      assert.is((await post(n1, base + 200, 'during')).status, 201);
      await eventually(async () => statusesOf(await converged([n1, n3]), ids.get(mine[0]!)!).includes('DOWN'), 'the change recorded by a survivor', 15_000);
      // The cut-off node holds nothing the others do not: its list is where theirs was when it lost Redis.
      const frozen = await eventsOf(victim);
      const full = await converged([n1, n3]);
      assert.equal(full.slice(0, frozen.length), frozen, 'n2\'s list is a prefix of the others\'');
      assert.ok(full.length > frozen.length, 'the others recorded events n2 has not seen yet');
      // A partition of a few intervals: long enough for checks by two nodes to show, were there any.
      await eventually(() => mine.every((k) => fleet!.checksOf(k).filter((check) => check.at >= t0 && check.node !== 'n2').length >= 3), 'three checks of each instance of n2 by the others', 15_000);
      await proxy.heal();
    }

    // Back without a restart: it renews its place and checks its own instances again.
    backAt = loggedAt(await eventually(() => linesSince(victim, mark, RENEWED)[0], 'n2 back in the cluster', 20_000));
    await eventually(() => mine.every((k) => fleet!.checksOf(k).filter((check) => check.at >= backAt).slice(-2).map((check) => check.node).join() === 'n2,n2'),
      'n2 checking its instances again (its two latest checks)', 20_000);
    assert.is((await post(victim, base + 300, 'after')).status, 201);

    const events = await converged(nodes, 20_000);
    assertNoDuplicates(events);
    if (fault !== 'half-open') assert.equal(statusesOf(events, ids.get(mine[0]!)!), ['UP', 'DOWN']);
    const registered = (id: string) => events.filter((event: WireEvent) => event.instance === id && event.type === 'REGISTERED').length;
    for (const id of ids.values()) assert.is(registered(id), 1, `${id} registered once`);
    await assertNotifiedOnce(events);

    // Two nodes never check one instance for longer than one interval: at most the one check the
    // old owner had under way when the other took over, in either direction.
    for (const k of mine) {
      const taker = survivors.get(k) ?? fleet!.checksOf(k).find((check) => check.at >= t0 && check.node !== 'n2')?.node;
      if (!taker) continue;
      assert.ok(checksAfterHandover(fleet!, k, 'n2', taker, t0, backAt) <= 1, `n2 kept checking instance ${k} after ${taker} took it over: ${checkTrail(fleet!, k, t0)}`);
      assert.ok(checksAfterHandover(fleet!, k, taker, 'n2', backAt) <= 1, `${taker} kept checking instance ${k} after n2 took it back: ${checkTrail(fleet!, k, t0)}`);
    }
    // The instances of the others never move: n2 owns nothing it did not own, in its view or theirs.
    for (const k of others) {
      const by = new Set(fleet!.checksSince(t0).get(k)!.map((check) => check.node));
      assert.equal([...by], [owners.get(k)], `instance ${k} checked by ${[...by].join(' and ')}`);
    }
  }, trail);
}

/**
 * Every status change the list holds is notified once (UNKNOWN → UP is not, by default): none
 * lost, none sent twice, whichever node sent it.
 */
async function assertNotifiedOnce(events: readonly WireEvent[]): Promise<void> {
  const expected: string[] = [];
  const last = new Map<string, string>();
  for (const event of events) {
    if (event.type === 'REGISTERED' || event.type === 'DEREGISTERED') last.set(event.instance, 'UNKNOWN');
    if (event.type !== 'STATUS_CHANGED') continue;
    if (last.get(event.instance) !== 'UNKNOWN' || event.statusInfo?.status !== 'UP') expected.push(`${event.instance}-${event.version}`);
    last.set(event.instance, event.statusInfo!.status);
  }
  const delivered = () => receiver!.requests.filter((request) => request.status === 200).map((request) => String(request.headers['webhook-id']));
  await eventually(() => delivered().length >= expected.length, `${expected.length} notification(s) delivered`, 15_000);
  assert.equal([...delivered()].sort(), [...expected].sort(), 'each status change notified once');
}

/**
 * 200 ms added to every round trip of one node's link: slow, not broken (each command still
 * answers well within command-timeout, each renewal well within heartbeat-ttl). The node keeps its
 * place and its instances (none is checked by another node), its writes succeed, a change of one
 * of its instances is recorded and notified once, and every node ends with the same events.
 */
async function slowLink(base: number): Promise<void> {
  const { nodes, ids, owners } = await formCluster(base);
  const victim = nodes[1]!;
  const proxy = cluster!.proxies[1]!;
  const mine = [...owners].filter(([, node]) => node === 'n2').map(([k]) => k);
  assert.ok(mine.length > 0, `n2 checks some instances: ${JSON.stringify([...owners])}`);
  const mark = victim.logs().length;
  const t0 = Date.now();
  await withDiagnosis(nodes, async () => {
    await proxy.inject('latency', 200);
    for (let k = base + 100; k < base + 105; k += 1) assert.is((await post(victim, k, 'slow')).status, 201, 'a registration through the slow link');
    fleet!.setStatus(mine[0]!, 'DOWN');
    await eventually(async () => statusesOf(await converged(nodes), ids.get(mine[0]!)!).includes('DOWN'), 'the change recorded', 15_000);
    // A few heartbeat-ttls on the slow link: long enough for a lapse, or a takeover, to show.
    await eventually(() => mine.every((k) => fleet!.checksOf(k).filter((check) => check.at >= t0).length >= 4), 'four checks of each instance of n2', 15_000);
    await proxy.heal();
    assert.equal(linesSince(victim, mark, LAPSED), [], 'n2 kept its place');
    assert.equal(linesSince(victim, mark, /Redis is unreachable/), [], 'n2 kept its link');
    for (const k of owners.keys()) {
      const by = new Set(fleet!.checksSince(t0).get(k)!.map((check) => check.node));
      assert.equal([...by], [owners.get(k)], `instance ${k} checked by ${[...by].join(' and ')}`);
    }
    const events = await converged(nodes, 20_000);
    assertNoDuplicates(events);
    assert.equal(statusesOf(events, ids.get(mine[0]!)!), ['UP', 'DOWN']);
    await assertNotifiedOnce(events);
  }, () => mine.map((k) => `instance ${k}: ${checkTrail(fleet!, k, t0)}`).join('\n'));
}

test('a cut (connections refused) between one node and Redis: it refuses writes and steps back, the others take over, it rejoins on heal', () => oneLinkFails('cut', 0));

test('a black hole (packets dropped, connections hang) between one node and Redis: the same', () => oneLinkFails('black-hole', 1000));

if (LONG) {
  test('200 ms of latency on one node\'s link: slow, not broken: it keeps its place and its instances, writes succeed, nothing is lost or doubled', () => slowLink(3000));

  test('a half-open link (the node\'s connections lost their far end without a word): detected by command time-outs, the node reconnects and rejoins', () => oneLinkFails('half-open', 2000));
}

test.run();
