import { createServer } from 'node:http';
import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import { instanceIdOf } from '../../../core/plugin-api.js';
import { Keys } from '../../../plugins/cluster-redis/keys.js';
import type { Client } from '../../../plugins/cluster-redis/redis-link.js';
import type { Daemon } from '../../support/daemon-process.js';
import { call, eventually } from '../../support/http.js';
import { listenLocal, type LocalServer } from '../../support/local-server.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { instancesOf, startNode, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

const KEY = 'correct horse battery staple, 32+';
const OTHER_KEY = 'a different secret of enough length';
const META_SECRET = 'META-SECRET-8c1f';
const URL_SECRET = 'URL-SECRET-77ad';
const keys = new Keys('vigil:');

let redis: RedisProcess | undefined;
let client: Client | undefined;
let instance: LocalServer | undefined;
const running: Daemon[] = [];

/** One instance whose health answers UP only to Vigil's call with its metadata credentials: a node that could not open them sees it DOWN. */
test.before(async () => {
  instance = await listenLocal(createServer((req, res) => {
    const expected = `Basic ${Buffer.from(`ops:${META_SECRET}`).toString('base64')}`;
    const status = req.headers.authorization === expected ? 'UP' : 'DOWN';
    res.writeHead(status === 'UP' ? 200 : 401, { 'content-type': 'application/json' }).end(JSON.stringify({ status }));
  }));
});

test.before.each(async () => {
  redis = await startRedis(redisServer);
  client = createClient({ url: redis.url }) as Client;
  await client.connect();
});

test.after.each(async () => {
  await stopAll(running.splice(0));
  client?.destroy();
  await redis?.stop();
});

test.after(async () => {
  await instance?.close();
});

const healthUrl = (k: number) => `http://127.0.0.1:${instance!.port}/i/${k}/health`;
const registration = (k: number) => ({
  name: 'guarded',
  healthUrl: healthUrl(k),
  serviceUrl: `http://svc:${URL_SECRET}@127.0.0.1:${instance!.port}/`,
  metadata: { 'user.name': 'ops', 'user.password': META_SECRET, 'api-token': META_SECRET },
});

async function node(id: string, secretKey?: string): Promise<Daemon> {
  const daemon = await startNode(id, {
    redisUrl: redis!.url,
    plugins: ['rest-api', 'monitor', 'probes', 'cluster-redis'],
    cluster: secretKey === undefined ? {} : { 'secret-key': secretKey },
  });
  running.push(daemon);
  return daemon;
}

/** Every string value under the prefix, whatever the key's type. */
async function everythingInRedis(): Promise<string> {
  const texts: string[] = [];
  for (const key of await client!.keys('vigil:*')) {
    const type = await client!.type(key);
    if (type === 'string') texts.push(String(await client!.get(key)));
    else if (type === 'hash') texts.push(JSON.stringify(await client!.hGetAll(key)));
    else if (type === 'stream') texts.push(JSON.stringify(await client!.sendCommand(['XRANGE', key, '-', '+'])));
    else if (type === 'zset') texts.push(JSON.stringify(await client!.zRange(key, 0, -1)));
    else if (type === 'set') texts.push(JSON.stringify(await client!.sMembers(key)));
  }
  return texts.join('\n');
}

const logged = (daemon: Daemon, pattern: RegExp) => daemon.logs().filter((line) => pattern.test(line));
const statusOn = async (daemon: Daemon, id: string) => ((await call('GET', `${daemon.url}/instances/${id}`)).json as { statusInfo?: { status: string } } | undefined)?.statusInfo?.status;

test('with secret-key: no credential is in Redis in clear; every node with the key opens the records, and uses the credentials', async () => {
  const first = await node('n1', KEY);
  const second = await node('n2', KEY);
  assert.ok(logged(first, /records in Redis are sealed with cluster-redis.secret-key \(key id [0-9a-f]{8};/).length > 0);
  assert.equal(logged(first, /secret-key is not set/), []);
  const registered = await call('POST', `${first.url}/instances`, { json: registration(1) });
  assert.is(registered.status, 201, registered.text);
  const id = (registered.json as { id: string }).id;
  // UP only with the right credentials, on whichever node checks it: both hold them, opened.
  await eventually(async () => (await statusOn(second, id)) === 'UP', 'the instance UP, checked with its credentials');

  const stored = await everythingInRedis();
  assert.ok(stored.includes(id), 'the dump holds the instance');
  assert.not.ok(stored.includes(META_SECRET), 'no metadata credential in clear');
  assert.not.ok(stored.includes(URL_SECRET), 'no URL password in clear');
  assert.match(String(await client!.hGet(keys.snapshots, id)), /^vigil-sealed:v1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);

  // A node starting later loads the sealed snapshot and history, and shows what the others show.
  const third = await node('n3', KEY);
  const shown = (await call('GET', `${first.url}/instances/${id}`)).json as Record<string, unknown>;
  assert.equal((await call('GET', `${third.url}/instances/${id}`)).json, shown);
  assert.equal((shown.registration as { metadata: Record<string, string> }).metadata, { 'user.name': 'ops', 'user.password': '******', 'api-token': '******' });
  assert.equal(logged(third, /refused/), []);
});

test('a node with another key, and one with none, start and keep running on sealed records: each is refused and logged, none registered', async () => {
  const keyed = await node('n1', KEY);
  const id = (await call('POST', `${keyed.url}/instances`, { json: registration(2) })).json as { id: string };
  const wrong = await node('n2', OTHER_KEY);
  const none = await node('n3');
  assert.ok(logged(none, /cluster-redis\.secret-key is not set: instance credentials .* are kept in Redis in clear/).length > 0);
  for (const [daemon, reason] of [[wrong, /it is sealed with another cluster-redis\.secret-key \(key id [0-9a-f]{8}; this node's is [0-9a-f]{8}\)/], [none, /it is sealed \(key id [0-9a-f]{8}\) and this node has no cluster-redis\.secret-key/]] as const) {
    await eventually(() => logged(daemon, new RegExp(`refused the snapshot of ${id.id} read from Redis: ${reason.source}; it is left out`)).length > 0, 'the snapshot refused on load');
    assert.equal(await instancesOf(daemon), []);
  }
  // One written while they run reaches them through the feed: refused there too.
  const later = (await call('POST', `${keyed.url}/instances`, { json: registration(3) })).json as { id: string };
  for (const daemon of [wrong, none]) {
    await eventually(() => logged(daemon, new RegExp(`refused the event of ${later.id} at seq \\d+ in the change feed read from Redis: it is sealed`)).length > 0, 'the feed event refused');
    assert.equal(await instancesOf(daemon), []);
    assert.is((await call('GET', `${daemon.url}/health/liveness`)).status, 200);
    assert.equal(logged(daemon, new RegExp(META_SECRET)), []);
  }
});

test('a cluster without a key keeps working when it gets one: records in clear are read, said once, and new ones are sealed', async () => {
  const plain = await node('n1');
  const old = (await call('POST', `${plain.url}/instances`, { json: registration(4) })).json as { id: string };
  assert.ok((await everythingInRedis()).includes(META_SECRET), 'without a key, in clear (the warning said so)');
  await stopAll(running.splice(0));
  const keyed = await node('n1', KEY);
  await eventually(async () => (await statusOn(keyed, old.id)) === 'UP', 'the instance registered before the key, checked with its credentials');
  assert.ok(logged(keyed, /is in clear although cluster-redis\.secret-key is set/).length > 0);
  assert.equal(logged(keyed, /refused/), []);
  const fresh = (await call('POST', `${keyed.url}/instances`, { json: registration(5) })).json as { id: string };
  assert.match(String(await client!.hGet(keys.snapshots, fresh.id)), /^vigil-sealed:v1:/);
});

test('records written into Redis by hand are checked as the API checks a registration: a URL form the API refuses is refused and logged, not registered', async () => {
  const daemon = await node('n1', KEY);
  const event = (healthUrl: string) => ({
    type: 'REGISTERED', instance: instanceIdOf(healthUrl), version: 0, timestamp: new Date().toISOString(),
    registration: { name: 'by-hand', healthUrl, managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} },
  });
  const inject = async (body: Record<string, unknown>) => {
    const seq = await client!.incr(keys.seq);
    await client!.sendCommand(['XADD', keys.feed, '*', 'q', String(seq), 'i', String(body.instance), 'e', JSON.stringify(body)]);
  };
  // The way in works: a well-formed entry (in clear: written before a key, or by a node without one) is taken.
  const good = event(`http://127.0.0.1:${instance!.port}/i/6/health`);
  await inject(good);
  await eventually(async () => (await call('GET', `${daemon.url}/instances/${good.instance}`)).status === 200, 'the well-formed entry registered');

  const bad = event('http:evil.example/health');
  const refused = await call('POST', `${daemon.url}/instances`, { json: bad.registration });
  assert.is(refused.status, 400, 'the API refuses this URL form');
  await inject(bad);
  const line = await eventually(() => logged(daemon, new RegExp(`refused the event of ${bad.instance} at seq \\d+ in the change feed read from Redis`)).at(0), 'the refusal logged');
  assert.match(line, /the registration would be refused by the API: 'healthUrl' is not valid: "http:evil\.example\/health" is not an absolute http\(s\) URL/);
  assert.is((await call('GET', `${daemon.url}/instances/${bad.instance}`)).status, 404);

  // Filed under another instance's id: refused as well.
  await inject({ ...event(`http://127.0.0.1:${instance!.port}/i/7/health`), instance: good.instance, version: 1, type: 'REGISTRATION_UPDATED' });
  await eventually(() => logged(daemon, /its health URL gives another instance id than/).length > 0, 'the misfiled entry refused');

  // Snapshots are checked the same way when a node loads them; garbage is refused, never a crash.
  await client!.hSet(keys.snapshots, bad.instance, JSON.stringify({ id: bad.instance, version: 0, registered: true, registration: bad.registration, statusInfo: { status: 'UP', details: {} }, statusTimestamp: bad.timestamp, info: {}, endpoints: [], buildVersion: null, tags: {} }));
  await client!.hSet(keys.snapshots, 'garbage', 'not a record');
  await client!.hSet(keys.snapshots, good.instance, JSON.stringify({ id: good.instance, version: 0, registered: true, registration: good.registration, statusInfo: { status: 'UNKNOWN', details: {} }, statusTimestamp: good.timestamp, info: {}, endpoints: [], buildVersion: null, tags: {} }));
  const next = await node('n2', KEY);
  assert.ok(logged(next, new RegExp(`refused the snapshot of ${bad.instance} read from Redis: the registration would be refused by the API`)).length > 0);
  assert.ok(logged(next, /refused the snapshot of garbage read from Redis: it is neither JSON nor a sealed record/).length > 0);
  assert.equal((await instancesOf(next)).map((i) => i.id), [good.instance]);
});

test.run();
