import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver, type Received } from '../notify/receiver.js';
import { PLUGINS, register, startNodes, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let receiver: Receiver | undefined;
const running: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  receiver = await Receiver.start();
});

test.after(async () => {
  await stopAll(running.splice(0));
  await receiver?.close();
  await fleet?.close();
  await redis?.stop();
});

type Body = { type: string; from?: string; to?: string; afterMaintenance?: string; instance?: { id: string; name: string }; application?: string; up?: number };
const bodyOf = (request: Received) => request.json as Body;
const summary = (request: Received) => {
  const body = bodyOf(request);
  if (body.application !== undefined) return `${body.type} ${body.application} ${body.up} UP`;
  return `${body.instance!.name} ${body.from}→${body.to}${body.afterMaintenance ? ` after ${body.afterMaintenance}` : ''}`;
};

test('3 nodes: every node agrees on the windows (Redis); a change in one is held wherever it is handled, and reported once at its end; an expectation is announced once', async () => {
  const nodes = await startNodes(3, {
    redisUrl: redis!.url,
    // Redis answers slowly on a loaded machine: what is tested here is agreement, not failover.
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '3s' },
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    config: {
      notify: { 'per-instance-rate': 0, expectations: [{ applications: ['orders'], 'min-up': 2, for: '1s' }] },
      'notify-webhook': { url: `${receiver!.url}/hook` },
    },
  });
  running.push(...nodes);
  const [n1, n2, n3] = nodes as [Daemon, Daemon, Daemon];
  const payments = await register(n1, fleet!.registration(1, 'payments'));
  await register(n2, fleet!.registration(2, 'orders'));
  await register(n3, fleet!.registration(3, 'orders'));
  const statusOf = async (id: string) => ((await call('GET', `${n1.url}/instances/${id}`)).json as { statusInfo: { status: string } }).statusInfo.status;
  await eventually(async () => (await statusOf(payments)) === 'UP', 'the instances checked');

  const made = await call('POST', `${n1.url}/maintenance`, { json: { applications: ['payments'], duration: '1h', reason: 'upgrade' } });
  assert.is(made.status, 201, `${made.text}\n${n1.logs().slice(-40).join('\n')}`);
  const lists = await Promise.all(nodes.map(async (node) => (await call('GET', `${node.url}/maintenance`)).json));
  assert.equal(lists[1], lists[0]);
  assert.equal(lists[2], lists[0]);
  assert.equal((lists[0] as { id: string; active: boolean }[]).map((w) => [w.id, w.active]), [['M-1', true]]);

  fleet!.setStatus(1, 'DOWN');
  const heldBack = async () => (await Promise.all(nodes.map(async (node) => ((await call('GET', `${node.url}/notifications`)).json as { pipeline: { inMaintenance: number } }).pipeline.inMaintenance)))
    .reduce((sum, count) => sum + count, 0);
  await eventually(async () => (await heldBack()) === 1, 'the DOWN held back by whichever node handled it', 10_000);

  // orders falls below its expectation: one APPLICATION_DEGRADED, whichever node judges.
  fleet!.setStatus(2, 'DOWN');
  await receiver!.received(2, undefined, 15_000);
  assert.equal(receiver!.requests.map(summary).sort(), ['APPLICATION_DEGRADED orders 1 UP', 'orders UP→DOWN']);

  // Ended on another node: the report comes once.
  assert.is((await call('DELETE', `${n3.url}/maintenance/M-1`)).status, 204);
  const [, , after] = await receiver!.received(3, undefined, 15_000);
  assert.is(summary(after!), 'payments UP→DOWN after M-1');
  assert.equal(await Promise.all(nodes.map(async (node) => (await call('GET', `${node.url}/maintenance`)).json)), [[], [], []]);

  fleet!.setStatus(2, 'UP');
  fleet!.setStatus(1, 'UP');
  await receiver!.received(6, undefined, 15_000);
  assert.equal(receiver!.requests.slice(3).map(summary).sort(), ['APPLICATION_RECOVERED orders 2 UP', 'orders DOWN→UP', 'payments DOWN→UP']);
  assert.is(receiver!.requests.filter((request) => bodyOf(request).afterMaintenance !== undefined).length, 1, 'reported once');
  assert.is(receiver!.requests.filter((request) => bodyOf(request).type === 'APPLICATION_DEGRADED').length, 1, 'announced once');
});

test('a window made on one node holds back at once the changes the other nodes handle: each reported once, by the end report only', async () => {
  await stopAll(running.splice(0));
  const start = receiver!.requests.length;
  const nodes = await startNodes(3, {
    redisUrl: redis!.url,
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '3s' },
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    config: { notify: { 'per-instance-rate': 0 }, 'notify-webhook': { url: `${receiver!.url}/hook` } },
  });
  running.push(...nodes);
  const [n1] = nodes as [Daemon, Daemon, Daemon];
  const shop = [11, 12, 13, 14, 15, 16];
  for (const k of shop) await register(nodes[k % 3]!, fleet!.registration(k, 'shop'));
  const shopUp = async () => ((await call('GET', `${n1.url}/applications/shop`)).json as { instances: { statusInfo: { status: string } }[] }).instances
    .filter((instance) => instance.statusInfo.status === 'UP').length;
  await eventually(async () => (await shopUp()) === shop.length, 'the shop instances UP');

  // Made on n1 and the changes at once: the other nodes' copies of the windows are older than the changes.
  const made = await call('POST', `${n1.url}/maintenance`, { json: { applications: ['shop'], duration: '1h', reason: 'upgrade' } });
  assert.is(made.status, 201, made.text);
  const window = (made.json as { id: string }).id;
  for (const k of shop) fleet!.setStatus(k, 'DOWN');
  await eventually(async () => (await shopUp()) === 0, 'the shop instances DOWN');

  assert.is((await call('DELETE', `${n1.url}/maintenance/${window}`)).status, 204);
  const reports = await receiver!.received(shop.length, (request) => bodyOf(request).afterMaintenance === window, 20_000);
  assert.equal(reports.map(summary), shop.map(() => `shop UP→DOWN after ${window}`));
  assert.equal(receiver!.requests.slice(start).filter((request) => bodyOf(request).instance?.name === 'shop' && bodyOf(request).afterMaintenance === undefined).map(summary), [],
    'no change inside the window notified on its own');
  for (const k of shop) fleet!.setStatus(k, 'UP');
});

test('nodes holding only the newest events of the instances they do not check: the end report reads each whole history (baseline UP, DOWN inside the window)', async () => {
  await stopAll(running.splice(0));
  const start = receiver!.requests.length;
  const nodes = await startNodes(3, {
    redisUrl: redis!.url,
    // A recent window far smaller than the fleet's events: the tracker's node holds no event of most instances.
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '3s', 'recent-events': 2 },
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    config: { notify: { 'per-instance-rate': 0 }, 'notify-webhook': { url: `${receiver!.url}/hook` } },
  });
  running.push(...nodes);
  const [n1] = nodes as [Daemon, Daemon, Daemon];
  // Its own application and instances: the previous test's leave notifications behind them.
  const cart = [31, 32, 33, 34, 35, 36];
  for (const k of cart) await register(nodes[k % 3]!, fleet!.registration(k, 'cart'));
  const cartUp = async () => ((await call('GET', `${n1.url}/applications/cart`)).json as { instances: { statusInfo: { status: string } }[] }).instances
    .filter((instance) => instance.statusInfo.status === 'UP').length;
  await eventually(async () => (await cartUp()) === cart.length, 'the cart instances UP');

  const made = await call('POST', `${n1.url}/maintenance`, { json: { applications: ['cart'], duration: '1h', reason: 'upgrade' } });
  assert.is(made.status, 201, made.text);
  const window = (made.json as { id: string }).id;
  for (const k of cart) fleet!.setStatus(k, 'DOWN');
  await eventually(async () => (await cartUp()) === 0, 'the cart instances DOWN');
  // More events than the recent window holds, after the cart's: every node but the one checking an instance forgets its events.
  for (const k of [41, 42, 43]) await register(nodes[k % 3]!, fleet!.registration(k, 'filler'));
  await eventually(async () => ((await call('GET', `${n1.url}/applications/filler`)).json as { status: string }).status === 'UP', 'the filler instances UP');

  assert.is((await call('DELETE', `${n1.url}/maintenance/${window}`)).status, 204);
  const reports = await receiver!.received(cart.length, (request) => bodyOf(request).afterMaintenance === window, 20_000);
  assert.equal(reports.map(summary), cart.map(() => `cart UP→DOWN after ${window}`));
  assert.is(receiver!.requests.slice(start).filter((request) => bodyOf(request).afterMaintenance === window).length, cart.length, 'each reported once');
  assert.equal(receiver!.requests.slice(start).filter((request) => bodyOf(request).instance?.name === 'cart' && bodyOf(request).afterMaintenance === undefined).map(summary), [],
    'no change inside the window notified on its own');
  for (const k of cart) fleet!.setStatus(k, 'UP');
});

test.run();
