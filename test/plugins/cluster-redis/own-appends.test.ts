import * as assert from 'uvu/assert';
import { EventBus, type InstanceChange } from '../../../core/bus.js';
import type { EventLog, Fence, InstanceTransition, LogReceiver, NewEvent } from '../../../core/contract/event-log.js';
import type { Logger } from '../../../core/plugin-api.js';
import { changeStatusCommand, detectEndpointsCommand } from '../../../core/store/commands.js';
import { InstanceRegistry } from '../../../core/store/registry.js';
import { statusInfo } from '../../../core/store/status.js';
import type { InstanceEvent } from '../../../core/store/types.js';
import { clusterRedisSchema } from '../../../plugins/cluster-redis/config.js';
import { Keys } from '../../../plugins/cluster-redis/keys.js';
import { RecordCodec } from '../../../plugins/cluster-redis/record-codec.js';
import { RecordSeal } from '../../../plugins/cluster-redis/record-seal.js';
import { RedisHistory } from '../../../plugins/cluster-redis/redis-history.js';
import { RedisLink } from '../../../plugins/cluster-redis/redis-link.js';
import { eventually } from '../../support/http.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
const oneNode = { lease: () => ({ held: true, token: 1 }) };

/** A node's history in Redis, recording what its registry hands each append and what the feed hands back. */
class RecordingHistory implements EventLog {
  readonly appended: InstanceTransition[] = [];
  readonly delivered: (InstanceTransition | undefined)[] = [];

  constructor(readonly history: RedisHistory, readonly link: RedisLink) {}

  open(receiver: LogReceiver): Promise<void> {
    return this.history.open({
      load: (...args) => receiver.load(...args),
      event: (event, change) => {
        this.delivered.push(change);
        receiver.event(event, change);
      },
      dropped: (id) => receiver.dropped(id),
    });
  }

  append(event: NewEvent, change: InstanceTransition, fence?: Fence): Promise<InstanceEvent> {
    this.appended.push(change);
    return this.history.append(event, change, fence);
  }

  drop(id: string, fence: Fence): Promise<void> {
    return this.history.drop(id, fence);
  }

  async close(): Promise<void> {
    await this.history.close();
    await this.link.close();
  }
}

interface Node {
  readonly registry: InstanceRegistry;
  readonly log: RecordingHistory;
  readonly published: InstanceChange[];
}

let redis: RedisProcess | undefined;
const nodes: Node[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
});

test.after(async () => {
  for (const node of nodes) await node.registry.close();
  await redis?.stop();
});

async function startNode(): Promise<Node> {
  const link = new RedisLink(clusterRedisSchema.cast({ url: redis!.url, 'command-timeout': '5s' }), quiet);
  await link.open(5000);
  // Sealed: each record carries a fresh IV, so an append is known by its own record, not by its content.
  const codec = new RecordCodec(new RecordSeal('a test secret of some length'), quiet);
  const history = new RedisHistory(link, new Keys('own:'), { maxEventsPerInstance: 100, maxDeregisteredInstances: 100, log: quiet, codec, onForeignHistory: () => undefined,
    assigned: () => true, view: () => 'one', window: 1000 });
  const bus = new EventBus(() => undefined);
  const published: InstanceChange[] = [];
  bus.on('instance.changed', (change) => void published.push(change));
  const registry = new InstanceRegistry(bus, { retentionAfterDeregistration: 60_000, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet });
  const log = new RecordingHistory(history, link);
  await registry.open(log, oneNode);
  const node = { registry, log, published };
  nodes.push(node);
  return node;
}

test('the feed hands the writer its own appends back with their transition, which it holds; other nodes fold them', async () => {
  const writer = await startNode();
  const reader = await startNode();
  const { id } = await writer.registry.register({ name: 'shop', healthUrl: 'http://10.0.0.1:8080/actuator/health', managementUrl: 'http://10.0.0.1:8080/actuator', serviceUrl: null, source: 'http-api', metadata: {} });
  await writer.registry.apply(id, changeStatusCommand(statusInfo('UP')));
  await writer.registry.apply(id, detectEndpointsCommand([{ id: 'info', url: 'http://10.0.0.1:8080/actuator/info' }]));
  assert.is(writer.log.appended.length, 3);
  assert.is(writer.log.delivered.length, 3);
  writer.log.delivered.forEach((change, index) => assert.is(change, writer.log.appended[index], `event ${index} came back with the transition it went with`));
  assert.is(writer.registry.get(id), writer.log.appended[2]!.after, 'the writer holds its transition: the event is not folded again');
  await eventually(() => writer.published.length === 3, 'the writer publishing its three events');
  writer.published.forEach((change, index) => assert.is(change.instance, writer.log.appended[index]!.after));

  await eventually(() => reader.registry.get(id)?.version === 2, 'the other node applying the three events');
  assert.equal(reader.log.delivered, [undefined, undefined, undefined], 'another node\'s events come without one');
  const wire = (node: Node) => JSON.parse(JSON.stringify(node.registry.get(id))) as unknown;
  assert.equal(wire(reader), wire(writer), 'folded to the same instance');
});

test.run();
