import fc from 'fast-check';
import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import { checkPlugin } from '../../../bin/testing.js';
import { compactHistory, compactionKind } from '../../../core/store/held-events.js';
import type { EventDraft, InstanceEvent } from '../../../core/store/types.js';
import { Keys } from '../../../plugins/cluster-redis/keys.js';
import type { Client } from '../../../plugins/cluster-redis/redis-link.js';
import { outageText } from '../../../plugins/cluster-redis/redis-errors.js';
import { ownerOf } from '../../../plugins/cluster-redis/rendezvous.js';
import { APPEND, INIT, LEASE } from '../../../plugins/cluster-redis/scripts.js';
import { startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');

let redis: RedisProcess | undefined;
let client: Client | undefined;

test.before(async () => {
  redis = await startRedis(redisServer);
  client = createClient({ url: redis.url }) as Client;
  await client.connect();
});

test.after(async () => {
  client?.destroy();
  await redis?.stop();
});

test('an outage in words: socket errors as Node names them become sentences an operator reads', () => {
  const socketError = (code: string, syscall: string) => Object.assign(new Error(`${syscall} ${code}`), { code, syscall });
  assert.is(outageText(socketError('ECONNRESET', 'read')), 'the connection to Redis closed unexpectedly');
  assert.is(outageText(socketError('EPIPE', 'write')), 'the connection to Redis closed unexpectedly');
  assert.is(outageText(socketError('ECONNREFUSED', 'connect')), 'Redis refused the connection (nothing listens at its address)');
  assert.is(outageText(socketError('EHOSTUNREACH', 'connect')), 'connect EHOSTUNREACH');
});

test('config: where Redis is, and a TTL longer than the heartbeat, are required; typos are refused', async () => {
  assert.equal(await checkPlugin('cluster-redis', { 'cluster-redis': { url: 'redis://127.0.0.1:6379' } }), []);
  const text = async (section: unknown) => (await checkPlugin('cluster-redis', { 'cluster-redis': section })).join('\n');
  assert.match(await text({}), /url or sentinel is required/);
  assert.match(await text({ url: 'http://x' }), /redis:\/\/ or rediss:\/\//);
  assert.match(await text({ url: 'redis://h', sentinel: { 'master-name': 'm', nodes: ['h:1'] } }), /not both/);
  assert.match(await text({ url: 'redis://h', 'heartbeat-interval': '5s', 'heartbeat-ttl': '2s' }), /heartbeat-ttl must be longer/);
  assert.match(await text({ url: 'redis://h', 'on-outage': 'panic' }), /on-outage/);
  assert.match(await text({ url: 'redis://h', hearbeat: 1 }), /hearbeat/);
  assert.match(await text({ sentinel: { 'master-name': 'm', nodes: ['nohost'] } }), /host:port/);
  assert.match(await text({ url: 'redis://h', 'secret-key': 'short' }), /cluster-redis.secret-key: must be at least 16 characters/);
  assert.equal(await checkPlugin('cluster-redis', { 'cluster-redis': { url: 'redis://h', 'secret-key': 'sixteen characters' } }), []);
});

test('rendezvous: every node agrees on one owner; a node leaving moves only its own instances', () => {
  const ids = Array.from({ length: 3000 }, (_, i) => `id-${i}`);
  const three = ['n1', 'n2', 'n3'];
  const owners = ids.map((id) => ownerOf(id, three));
  const counts = three.map((node) => owners.filter((owner) => owner === node).length);
  for (const count of counts) assert.ok(count > 800 && count < 1200, `an even spread: ${counts.join(', ')}`);
  const two = ['n1', 'n3'];
  ids.forEach((id, i) => {
    if (owners[i] !== 'n2') assert.is(ownerOf(id, two), owners[i], `${id} stays where it was`);
  });
  assert.is(ownerOf('x', []), undefined);
});

test('the append script compacts exactly as the kernel does (compactHistory), for any history', async () => {
  const drafts: fc.Arbitrary<EventDraft> = fc.oneof(
    fc.constantFrom('UP', 'DOWN', 'OFFLINE', 'UNKNOWN', 'CUSTOM-A', 'CUSTOM-B').map((status) => ({ type: 'STATUS_CHANGED', statusInfo: { status, details: {} } }) as EventDraft),
    fc.constant({ type: 'INFO_CHANGED', info: {} } as EventDraft),
    fc.constant({ type: 'ENDPOINTS_DETECTED', endpoints: [] } as EventDraft),
  );
  let run = 0;
  await fc.assert(fc.asyncProperty(fc.array(drafts, { minLength: 1, maxLength: 40 }), fc.integer({ min: 3, max: 12 }), async (tail, max) => {
    run += 1;
    const keys = new Keys(`prop${run}:`);
    const [incarnation] = await INIT.run<[string]>(client!, [keys.meta, keys.seq], ['inc', 1]);
    const registration = { name: 'a', healthUrl: 'http://h/', managementUrl: null, serviceUrl: null, source: 'x', metadata: {} };
    const all: InstanceEvent[] = [{ type: 'REGISTERED', registration } as EventDraft, ...tail].map((draft, version) =>
      ({ ...draft, instance: 'i', version, timestamp: 't', seq: version + 1 }) as InstanceEvent);
    for (const event of all) {
      await APPEND.run(client!, [keys.events('i'), keys.versions, keys.snapshots, keys.feed, keys.seq, keys.meta, keys.deregistered, keys.outbox, keys.outboxOn, keys.meta, keys.eventIndex],
        ['i', event.version, compactionKind(event), JSON.stringify(event), '{}', max, 1000, event.type, 'UP', 'UP', 't', incarnation, '', '']);
    }
    const held = await client!.sendCommand<[string, string[]][]>(['XRANGE', keys.events('i'), '-', '+']);
    const versions = held.map(([, fields]) => (JSON.parse(fields[fields.indexOf('e') + 1]!) as InstanceEvent).version);
    assert.equal(versions, compactHistory(all, max).map((event) => event.version));
  }), { numRuns: 60 });
});

test('the append script refuses a stale version and a stale fence, and numbers events from the history\'s base', async () => {
  const keys = new Keys('seq:');
  const [incarnation, base, seq] = await INIT.run<[string, string, string]>(client!, [keys.meta, keys.seq], ['inc-1', 5000]);
  assert.equal([incarnation, base, seq], ['inc-1', '5000', '4999']);
  assert.equal(await INIT.run(client!, [keys.meta, keys.seq], ['inc-2', 9000]), ['inc-1', '5000', '4999'], 'an existing history is kept');
  const append = (version: number, fence = '') => APPEND.run<number>(client!, [keys.events('i'), keys.versions, keys.snapshots, keys.feed, keys.seq, keys.meta,
    keys.deregistered, keys.outbox, keys.outboxOn, keys.epoch('job'), keys.eventIndex], ['i', version, 'k', '{}', '{}', 100, 1000, 'INFO_CHANGED', 'UP', 'UP', 't', 'inc-1', fence, '']);
  assert.is(await append(0), 5000);
  assert.is(await append(1), 5001);
  const conflict = await append(1).catch((error: Error) => error.message);
  assert.is(conflict, 'VERSION_CONFLICT 1');
  const holder = 'n1|t';
  assert.is(await LEASE.run(client!, [keys.lease('job'), keys.epoch('job')], [holder, 10_000]), 1);
  assert.is(await LEASE.run(client!, [keys.lease('job'), keys.epoch('job')], ['n2|t', 10_000]), null, 'held by another');
  assert.is(await append(2, '1'), 5002);
  await client!.set(keys.epoch('job'), '2');
  assert.is(await append(3, '1').catch((error: Error) => error.message), 'STALE_FENCE 2');
  const wrongHistory = await APPEND.run(client!, [keys.events('i'), keys.versions, keys.snapshots, keys.feed, keys.seq, keys.meta, keys.deregistered, keys.outbox, keys.outboxOn, keys.meta, keys.eventIndex],
    ['i', 9, 'k', '{}', '{}', 100, 1000, 'INFO_CHANGED', 'UP', 'UP', 't', 'inc-other', '', '']).catch((error: Error) => error.message);
  assert.is(wrongHistory, 'INCARNATION inc-1');
});

test.run();
