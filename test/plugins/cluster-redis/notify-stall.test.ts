import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver, type Received } from '../notify/receiver.js';
import { RENEWED, linesSince } from './link-support.js';
import { FAST, PLUGINS, register, startNodes, stopAll, withDiagnosis } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
let receiver: Receiver | undefined;
const running: Daemon[] = [];
let stalled: Daemon | undefined;

test.before(async () => {
  redis = await startRedis(redisServer);
  fleet = await Fleet.start();
  receiver = await Receiver.start();
});

test.after(async () => {
  stalled?.signal('SIGCONT');
  await stopAll(running.splice(0));
  await receiver?.close();
  await fleet?.close();
  await redis?.stop();
});

type Body = { to: string; instance: { id: string } };
const nodeOf = (request: Received) => /\(node ([^)]+)\)/.exec(String(request.headers['user-agent']))?.[1];
const shown = (request: Received) => `${String(request.headers['webhook-id'])} from ${String(nodeOf(request))}, answered ${request.status || '(not yet)'}: ${request.body}`;

/**
 * The node delivering a notification is paused (a long GC, SIGSTOP) while it waits to try again,
 * past heartbeat-ttl: another node takes the item over and delivers it. When the paused node runs
 * again its retry is due at once, but the item is no longer its own: it sends nothing (the known
 * duplicate), and leaves the item to the node that took it.
 */
test('a node paused past heartbeat-ttl while a notification waits for its retry: another node delivers it, the paused one does not send it again', async () => {
  const nodes = await startNodes(2, {
    redisUrl: redis!.url,
    plugins: [...PLUGINS, 'notify', 'notify-webhook'],
    // The timings notify-failover gives a loaded machine.
    cluster: { 'heartbeat-interval': '500ms', 'heartbeat-ttl': '3s', 'command-timeout': '2s' },
    config: {
      monitor: { ...FAST.monitor, 'status-interval': '3s', 'default-timeout': '2s' },
      'log-level': 'debug',
      notify: { delivery: { timeout: '10s', 'backoff-base': '20ms', 'backoff-cap': '100ms' } },
      'notify-webhook': { url: `${receiver!.url}/hook` },
    },
  });
  running.push(...nodes);
  await withDiagnosis(nodes, async () => {
    const id = await register(nodes[0]!, fleet!.registration(1));
    const since = Date.now();
    await eventually(() => Boolean(fleet!.checksSince(since).get(1)?.length), 'the instance checked');
    // The first attempt is refused with a wait the paused node will have overslept.
    receiver!.answer({ status: 503, headers: { 'retry-after': '2' } });
    fleet!.setStatus(1, 'DOWN');
    const [first] = await receiver!.received(1);
    assert.equal([(first!.json as Body).instance.id, (first!.json as Body).to], [id, 'DOWN']);
    stalled = nodes.find((node) => nodeOf(first!) === `n${nodes.indexOf(node) + 1}`);
    if (!stalled) throw new Error(`the User-Agent names no node: ${String(first!.headers['user-agent'])}`);
    const other = `n${2 - nodes.indexOf(stalled)}`;
    stalled.signal('SIGSTOP');
    const mark = stalled.logs().length;

    const [second] = await receiver!.received(1, (request) => nodeOf(request) === other, 20_000);
    assert.is(second!.headers['webhook-id'], first!.headers['webhook-id'], 'the same notification, as its receiver can tell');
    assert.is(second!.status, 200);

    // It runs again: its retry is overdue, it lapses, then renews its place.
    stalled.signal('SIGCONT');
    stalled = undefined;
    const resumed = nodes.find((node) => `n${nodes.indexOf(node) + 1}` === nodeOf(first!))!;
    await eventually(() => linesSince(resumed, mark, RENEWED).length > 0, 'the paused node back in the cluster', 20_000);
    // A later change arrives after whatever the paused node would have sent.
    fleet!.setStatus(1, 'UP');
    await receiver!.received(1, (request) => (request.json as Body).to === 'UP', 20_000);
    assert.equal(receiver!.arrivals.filter((request) => request.headers['webhook-id'] === first!.headers['webhook-id']).map((request) => `${String(nodeOf(request))} ${request.status}`),
      [`${nodeOf(first!)} 503`, `${other} 200`], 'the DOWN notification: refused once, delivered once, never sent again by the paused node');
    assert.equal(receiver!.arrivals.map((request) => (request.json as Body).to), ['DOWN', 'DOWN', 'UP']);
  }, () => receiver!.arrivals.map(shown).join('\n'));
});

test.run();
