import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import { Keys } from '../../../plugins/cluster-redis/keys.js';
import type { Client } from '../../../plugins/cluster-redis/redis-link.js';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver, type Received } from '../notify/receiver.js';
import { FAST, PLUGINS, register, startNode, stopAll, withDiagnosis } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

const keys = new Keys('vigil:');
let redis: RedisProcess | undefined;
let client: Client | undefined;
let fleet: Fleet | undefined;
let receiver: Receiver | undefined;
const running: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  client = createClient({ url: redis.url }) as Client;
  await client.connect();
  fleet = await Fleet.start();
  receiver = await Receiver.start();
});

test.after(async () => {
  await stopAll(running.splice(0));
  client?.destroy();
  await receiver?.close();
  await fleet?.close();
  await redis?.stop();
});

type Body = { to: string; instance: { id: string } };
const nodeOf = (request: Received) => /\(node ([^)]+)\)/.exec(String(request.headers['user-agent']))?.[1];

/** A node sending to the receiver, its changes grouped over `groupWindow`. */
const node = (id: string, groupWindow: string) => startNode(id, {
  redisUrl: redis!.url,
  plugins: [...PLUGINS, 'notify', 'notify-webhook'],
  // Time to answer that a loaded machine can honour (as in notify-failover.test.ts): no OFFLINE, no node dropping out.
  cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '2s' },
  config: {
    monitor: { ...FAST.monitor, 'status-interval': '3s', 'default-timeout': '2s' },
    'log-level': 'debug',
    // Reminders only for their record (below); the period outlasts the test.
    notify: { 'group-window': groupWindow, reminder: { period: '1h' }, delivery: { 'backoff-base': '20ms', 'backoff-cap': '100ms' } },
    'notify-webhook': { url: `${receiver!.url}/hook` },
  },
});

test('kill -9 of a node holding a change in its group-window batch: the change stays in the outbox, and the node taking it over sends it', async () => {
  // The holder's window outlasts the test: the change can only ever be sent by the node that takes it over.
  const holder = await node('n1', '1h');
  running.push(holder);
  const nodes = [holder];
  await withDiagnosis(nodes, async () => {
    const id = await register(holder, fleet!.registration(1));
    const since = Date.now();
    await eventually(() => Boolean(fleet!.checksSince(since).get(1)?.length), 'the instance checked');
    fleet!.setStatus(1, 'DOWN');
    // The holder is the only consumer, and records the reminder of a DOWN right after it handed the change on to
    // storm control and grouping: once the record is in Redis, the change waits in the holder's batch.
    await eventually(async () => await client!.exists(keys.state('notify.reminders', id)) === 1, 'the holder handing the DOWN on', 10_000);
    holder.signal('SIGKILL');
    await holder.exited;

    const taker = await node('n2', '0s');
    running.push(taker);
    nodes.push(taker);
    const [sent] = await receiver!.received(1, undefined, 20_000);
    assert.equal([(sent!.json as Body).instance.id, (sent!.json as Body).to, nodeOf(sent!)], [id, 'DOWN', 'n2']);
    assert.is(receiver!.arrivals.length, 1, 'sent once');
  }, () => receiver!.arrivals.map((request) => `received from ${String(nodeOf(request))}: ${request.body}`).join('\n'));
});

test.run();
