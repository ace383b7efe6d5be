import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver, type Received } from '../notify/receiver.js';
import { FAST, PLUGINS, register, startNodes, stopAll, withDiagnosis } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let receiver: Receiver | undefined;
const running: Daemon[] = [];
let release: () => void = () => {};

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  receiver = await Receiver.start();
});

test.after(async () => {
  release();
  await stopAll(running.splice(0));
  await receiver?.close();
  await fleet?.close();
  await redis?.stop();
});

type Body = { to: string; instance: { id: string } };
const nodeOf = (request: Received) => /\(node ([^)]+)\)/.exec(String(request.headers['user-agent']))?.[1];

test('kill -9 of the node delivering a notification: another node claims it from the outbox and it arrives', async () => {
  const nodes = await startNodes(3, {
    redisUrl: redis!.url,
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    // Time to answer that a loaded machine can honour: a fake instance answering a check after 400 ms
    // is rightly OFFLINE, and a node whose Redis calls take 500 ms rightly drops out, and either
    // sends notifications this scenario does not expect.
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '2s' },
    config: {
      monitor: { ...FAST.monitor, 'status-interval': '3s', 'default-timeout': '2s' },
      // Debug: a failure under load is diagnosed from every status change's reason (see withDiagnosis).
      'log-level': 'debug',
      // A long timeout: the node holding the unanswered call must not give up on its own first.
      notify: { delivery: { timeout: '60s', 'backoff-base': '20ms', 'backoff-cap': '100ms' } },
      'notify-webhook': { url: `${receiver!.url}/hook` },
    },
  });
  running.push(...nodes);
  await withDiagnosis(nodes, () => killTheDeliverer(nodes), () => receiver!.arrivals.map(shown).join('\n'));
});

async function killTheDeliverer(nodes: readonly Daemon[]): Promise<void> {
  const id = await register(nodes[0]!, fleet!.registration(1));
  const since = Date.now();
  await eventually(() => Boolean(fleet!.checksSince(since).get(1)?.length), 'the instance checked');
  // The first call is received and never answered: its node is killed while it waits.
  receiver!.answer({ status: 200, gate: new Promise<void>((resolve) => { release = resolve; }) });
  fleet!.setStatus(1, 'DOWN');
  const [first] = await receiver!.arrived(1);
  assert.equal([(first!.json as Body).instance.id, (first!.json as Body).to], [id, 'DOWN']);
  const deliverer = nodes.find((node) => nodeOf(first!) === nodeIdOf(nodes, node));
  if (!deliverer) throw new Error(`the User-Agent names no node: ${String(first!.headers['user-agent'])}`);
  deliverer.signal('SIGKILL');
  await deliverer.exited;

  const [second] = await receiver!.received(1, undefined, 20_000);
  assert.is(second!.headers['webhook-id'], first!.headers['webhook-id'], 'the same notification, as its receiver can tell');
  assert.is(second!.body, first!.body);
  assert.is.not(nodeOf(second!), nodeOf(first!), 'delivered by a survivor');
  assert.is(second!.status, 200);
  assert.equal(receiver!.requests, [second], 'the first call was never answered');

  // Exactly once more, not again: the next change arrives after it and it is not repeated.
  fleet!.setStatus(1, 'UP');
  await receiver!.received(1, (request) => (request.json as Body).to === 'UP', 20_000);
  assert.is(receiver!.arrivals.filter((request) => request.headers['webhook-id'] === first!.headers['webhook-id']).length, 2);
  assert.equal(receiver!.arrivals.map((request) => (request.json as Body).to), ['DOWN', 'DOWN', 'UP']);
}

/** One request the receiver saw, as a diagnosis shows it. */
function shown(request: Received): string {
  return `received ${String(request.headers['webhook-id'])} from ${String(nodeOf(request))}, answered ${request.status || '(not yet)'}: ${request.body}`;
}

/** A node's id, as startNodes names them: n1, n2, n3 in start order. */
function nodeIdOf(nodes: readonly Daemon[], node: Daemon): string {
  return `n${nodes.indexOf(node) + 1}`;
}

test.run();
