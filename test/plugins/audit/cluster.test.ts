import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import { call, eventually } from '../../support/http.js';
import type { Daemon } from '../../support/daemon-process.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { register, startNode, startNodes, stopAll } from '../cluster-redis/support.js';
import type { Entry } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let nodes: Daemon[] = [];

test.before(async () => {
  redis = await startRedis(redisServer);
  nodes = await startNodes(2, { redisUrl: redis.url, plugins: ['rest-api', 'cluster-redis', 'audit'], config: { audit: { 'max-entries': 1000 } } });
});

test.after(async () => {
  await stopAll(nodes.splice(0));
  await redis?.stop();
});

const trailOf = async (node: Daemon, query = ''): Promise<Entry[]> => (await call('GET', `${node.url}/audit${query}`)).json as Entry[];

test('one trail for the cluster: what one node records, every node shows, live too, in one order', async () => {
  const [n1, n2] = nodes as [Daemon, Daemon];
  const stream = await fetch(`${n2.url}/audit`, { headers: { accept: 'text/event-stream' } });
  assert.is(stream.status, 200);
  const id = await register(n1, { name: 'shop', healthUrl: 'http://127.0.0.1:1/actuator/health' });
  assert.is((await call('DELETE', `${n1.url}/instances/${id}`)).status, 204);
  // A request's entry is recorded once its response has ended, so it may reach the shared trail
  // a moment after the client has its answer: the next request waits for it, to come after it.
  await eventually(async () => (await trailOf(n1)).some((e) => e.action === 'instances.deregister'), 'the deregistration in the trail');
  assert.is((await call('POST', `${n2.url}/applications`)).status, 200);
  // GET /audit reads the cluster's trail first: no waiting for the other node.
  const onN2 = await trailOf(n2);
  assert.equal(onN2.map((e) => e.action), ['applications.refresh', 'instances.deregister']);
  assert.equal(await trailOf(n1), onN2);
  assert.equal(onN2.map((e) => e.instance), [null, id]);
  // The stream on n2 got n1's entry, which it never served.
  const reader = stream.body!.getReader();
  let text = '';
  await eventually(async () => {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
    return text.includes('instances.deregister') && text.includes('applications.refresh');
  }, 'both entries on the stream');
  assert.ok(text.indexOf('instances.deregister') < text.indexOf('applications.refresh'), text);
  assert.match(text, `id: ${onN2[1]!.id}\n`);
  await reader.cancel();
});

test('a node started later loads the cluster\'s trail', async () => {
  const [n1] = nodes as [Daemon, Daemon];
  const late = await startNode('n3', { redisUrl: redis!.url, plugins: ['rest-api', 'cluster-redis', 'audit'] });
  nodes.push(late);
  assert.equal(await trailOf(late), await trailOf(n1));
  assert.is((await trailOf(late)).length, 2);
});

test('after Redis lost its data, new entries still reach every node, with greater ids', async () => {
  const [n1, n2] = nodes as [Daemon, Daemon];
  const before = (await trailOf(n2))[0]!.id;
  const client = createClient({ url: redis!.url });
  await client.connect();
  await client.flushAll();
  await client.quit();
  await eventually(async () => (await call('POST', `${n1.url}/applications`)).status === 200, 'n1 takes writes again');
  const after = await eventually(async () => {
    const newest = (await trailOf(n2))[0]!;
    return newest.id !== before ? newest : undefined;
  }, 'the new entry on n2');
  assert.ok(after.id > before, `${after.id} > ${before}`);
  assert.is(after.action, 'applications.refresh');
});

test.run();
