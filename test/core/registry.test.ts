import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus, type InstanceChange } from '../../core/bus.js';
import { changeInfoCommand, changeStatusCommand, detectEndpointsCommand, sameRegistration } from '../../core/store/commands.js';
import { MemoryEventLog } from '../../core/store/memory-event-log.js';
import { InstanceRegistry } from '../../core/store/registry.js';
import { statusInfo } from '../../core/store/status.js';
import type { Instance, Registration } from '../../core/store/types.js';
import { eventually } from '../support/http.js';
import { wireForm } from '../support/wire-form.js';

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
const oneNode = { lease: () => ({ held: true, token: 1 }) };

async function setup(retention = 60_000, now?: () => number, maxDeregistered?: number) {
  const changes: InstanceChange[] = [];
  const bus = new EventBus(() => undefined);
  bus.on('instance.changed', (change) => {
    changes.push(change);
  });
  const registry = new InstanceRegistry(bus, {
    retentionAfterDeregistration: retention, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet, ...(now ? { now } : {}),
  });
  await registry.open(new MemoryEventLog(1, maxDeregistered), oneNode);
  return { registry, changes };
}

function reg(overrides: Partial<Registration> = {}): Registration {
  return {
    name: 'shop',
    healthUrl: 'http://localhost:8080/actuator/health',
    managementUrl: 'http://localhost:8080/actuator',
    serviceUrl: 'http://localhost:8080/',
    source: 'http-api',
    metadata: {},
    ...overrides,
  };
}

test('register: SBA id, REGISTERED at version 0, UNKNOWN until checked', async () => {
  const { registry, changes } = await setup();
  const { id, event } = await registry.register(reg());
  assert.is(id, 'a973ff14be49'); // reference §2 example
  assert.is(event?.type, 'REGISTERED');
  assert.is(event?.version, 0);
  const instance = registry.get(id)!;
  assert.is(instance.registered, true);
  assert.is(instance.statusInfo.status, 'UNKNOWN');
  assert.is(changes.length, 1);
  assert.is(changes[0]!.previous.version, -1);
});

test('an equal re-registration records nothing; a changed one REGISTRATION_UPDATED keeping status', async () => {
  const { registry } = await setup();
  const { id } = await registry.register(reg());
  await registry.apply(id, changeStatusCommand(statusInfo('UP')));
  assert.is((await registry.register(reg())).event, null);
  const updated = (await registry.register(reg({ metadata: { startup: 'later' } }))).event;
  assert.is(updated?.type, 'REGISTRATION_UPDATED');
  assert.is(updated?.version, 2);
  assert.is(registry.get(id)!.statusInfo.status, 'UP');
  assert.equal(registry.get(id)!.registration!.metadata, { startup: 'later' });
});

test('sameRegistration: every field counts, metadata in any key order', async () => {
  const base = reg({ metadata: { a: '1', b: '2' } });
  assert.ok(sameRegistration(base, reg({ metadata: { b: '2', a: '1' } })));
  for (const change of [{ name: 'other' }, { healthUrl: 'http://localhost:8081/actuator/health' }, { managementUrl: null }, { serviceUrl: 'http://localhost:8080/x' },
    { source: 'test' }, { metadata: { a: '1' } }, { metadata: { a: '1', b: '2', c: '3' } }, { metadata: { a: '1', b: '3' } }, { metadata: { a: '1', c: '2' } }] as Partial<Registration>[]) {
    assert.not.ok(sameRegistration(base, reg({ ...change, metadata: change.metadata ?? base.metadata })), JSON.stringify(change));
    assert.not.ok(sameRegistration(reg({ ...change, metadata: change.metadata ?? base.metadata }), base), `${JSON.stringify(change)}, the other way round`);
  }
  assert.not.ok(sameRegistration(reg({ metadata: {} }), reg({ metadata: { constructor: 'x' } })));
});

test('deregister: DEREGISTERED, hidden from lists, later commands write nothing, re-register continues versions', async () => {
  const { registry } = await setup();
  const { id } = await registry.register(reg());
  assert.is(await registry.deregister(id), true);
  assert.is(await registry.deregister(id), true, 'a held id answers again');
  assert.is(await registry.deregister('000000000000'), false);
  assert.is(registry.get(id)!.registered, false);
  assert.equal(registry.list(), []);
  assert.is(await registry.apply(id, changeStatusCommand(statusInfo('UP'))), null);
  assert.is(await registry.apply(id, changeInfoCommand({ a: 1 })), null);
  assert.is(await registry.apply(id, detectEndpointsCommand([{ id: 'info', url: 'http://x/info' }])), null);
  assert.equal(registry.eventsOf(id).map((e) => e.type), ['REGISTERED', 'DEREGISTERED']);
  const again = (await registry.register(reg())).event!;
  assert.is(again.type, 'REGISTERED');
  assert.is(again.version, 2);
});

test('status: details-only change is no event by default, one with full detection; timestamp moves only with the status', async () => {
  let clock = 1_000;
  const { registry } = await setup(60_000, () => clock);
  const { id } = await registry.register(reg());
  clock = 2_000;
  await registry.apply(id, changeStatusCommand(statusInfo('UP', { db: 'a' })));
  const upAt = registry.get(id)!.statusTimestamp;
  assert.is(upAt, new Date(2_000).toISOString());
  clock = 3_000;
  assert.is(await registry.apply(id, changeStatusCommand(statusInfo('UP', { db: 'b' }))), null);
  assert.is((await registry.apply(id, changeStatusCommand(statusInfo('UP', { db: 'b' }), 'full')))?.type, 'STATUS_CHANGED');
  assert.is(registry.get(id)!.statusTimestamp, upAt);
  assert.equal(registry.get(id)!.statusInfo.details, { db: 'b' });
});

test('timestamps never go backwards even if the clock does', async () => {
  let clock = 5_000;
  const { registry } = await setup(60_000, () => clock);
  const { id } = await registry.register(reg());
  clock = 1_000;
  const event = (await registry.apply(id, changeStatusCommand(statusInfo('UP'))))!;
  assert.is(event.timestamp, new Date(5_000).toISOString());
});

test('endpoints: recorded only when they differ, health always the healthUrl', async () => {
  const { registry } = await setup();
  const { id } = await registry.register(reg());
  const detected = [{ id: 'info', url: 'http://localhost:8080/actuator/info' }, { id: 'health', url: 'http://elsewhere/health' }];
  assert.is((await registry.apply(id, detectEndpointsCommand(detected)))?.type, 'ENDPOINTS_DETECTED');
  assert.is(await registry.apply(id, detectEndpointsCommand([...detected].reverse())), null);
  assert.is((await registry.apply(id, detectEndpointsCommand([])))?.type, 'ENDPOINTS_DETECTED', 'losing endpoints is a change');
  assert.is(await registry.apply(id, detectEndpointsCommand([{ id: 'health', url: 'http://x' }])), null, 'health-only equals none');
  assert.equal(registry.get(id)!.endpoints, []);
});

test('endpoints under the management URL are held without URLs of their own; they read and serialise as detected', async () => {
  const { registry, changes } = await setup();
  const { id } = await registry.register(reg());
  const detected = [
    { id: 'info', url: 'http://localhost:8080/actuator/info' },
    { id: 'health', url: 'http://localhost:8080/actuator/health' },
    { id: 'metrics', url: 'http://metrics.example/actuator/metrics' },
  ];
  await registry.apply(id, detectEndpointsCommand(detected));
  const held = registry.get(id)!.endpoints;
  assert.equal(held.map(({ id, url }) => ({ id, url })), detected);
  assert.equal(wireForm(held), detected);
  assert.equal(held.map((endpoint) => Object.keys(endpoint)), [['id'], ['id'], ['id', 'url']], 'only the foreign one holds a URL');
  assert.equal({ ...held[0]! }, { id: 'info' }, 'a spread copies no management URL');
  const event = changes.at(-1)!.event;
  assert.is(event.type === 'ENDPOINTS_DETECTED' && event.endpoints, held, 'the event and the snapshot share one array');
  assert.equal(wireForm(registry.events().filter((e) => e.type === 'ENDPOINTS_DETECTED')), [wireForm(event)]);

  // A new management URL: the endpoints keep the URLs they were detected at.
  await registry.register(reg({ managementUrl: 'http://localhost:9090/manage' }));
  assert.equal(wireForm(registry.get(id)!.endpoints), detected);
});

test('endpoints all under the management URL: the snapshot and the event hold their ids, and read, serialise and fold as detected', async () => {
  const { registry, changes } = await setup();
  const { id } = await registry.register(reg());
  const detected = [
    { id: 'info', url: 'http://localhost:8080/actuator/info' },
    { id: 'health', url: 'http://localhost:8080/actuator/health' },
    { id: 'env', url: 'http://localhost:8080/actuator/env' },
  ];
  await registry.apply(id, detectEndpointsCommand(detected));
  const instance = registry.get(id)!;
  assert.equal(wireForm(instance.endpoints), detected);
  assert.is.not(instance.endpoints, instance.endpoints, 'built when read');
  const event = changes.at(-1)!.event;
  assert.is(event.type, 'ENDPOINTS_DETECTED');
  assert.equal(event.type === 'ENDPOINTS_DETECTED' && wireForm(event.endpoints), detected);
  assert.equal(Object.keys(event), ['type', 'instance', 'version', 'timestamp', 'seq'], 'the endpoints are no field of their own');
  assert.ok(Object.isFrozen(event));
  const [held] = registry.events().filter((e) => e.type === 'ENDPOINTS_DETECTED');
  assert.is(held, event, 'the event published is the one held');
  assert.equal(JSON.parse(JSON.stringify(event)), { type: 'ENDPOINTS_DETECTED', instance: id, version: event.version, timestamp: event.timestamp, seq: event.seq, endpoints: detected });
  assert.equal(Object.keys(JSON.parse(JSON.stringify(instance)) as object), ['id', 'version', 'registration', 'registered', 'statusInfo', 'statusTimestamp', 'info', 'endpoints', 'buildVersion', 'tags']);

  // Later changes keep them; the same ids detected again change nothing.
  await registry.apply(id, changeStatusCommand(statusInfo('UP')));
  assert.equal(wireForm(registry.get(id)!.endpoints), detected);
  assert.is(await registry.apply(id, detectEndpointsCommand(detected)), null);
});

test('info: buildVersion and tags follow (metadata wins the version, info wins tag clashes)', async () => {
  const { registry } = await setup();
  const { id } = await registry.register(reg({ metadata: { 'tags.env': 'test', 'tags.zone': 'a' } }));
  await registry.apply(id, changeInfoCommand({ build: { version: '1.2.0' }, tags: { zone: 'b' } }));
  let instance = registry.get(id)!;
  assert.is(instance.buildVersion, '1.2.0');
  assert.equal(instance.tags, { env: 'test', zone: 'b' });
  await registry.register(reg({ metadata: { 'tags.env': 'test', version: '9.9' } }));
  instance = registry.get(id)!;
  assert.is(instance.buildVersion, '9.9');
  assert.is(await registry.apply(id, changeInfoCommand(instance.info)), null, 'equal info is no event');
});

test('load: events read past their snapshot (a log read while writes went on) are held once, when the log delivers them again', async () => {
  const { registry: writer } = await setup();
  const { id } = await writer.register(reg());
  const stale = writer.get(id)!;
  await writer.apply(id, changeStatusCommand(statusInfo('UP')));
  await writer.apply(id, changeStatusCommand(statusInfo('DOWN')));
  const [registered, up, down] = writer.events();
  const { registry: reader, changes } = await setup();
  // The snapshot was read at version 0, the history after two more appends; `last` before them.
  reader.load([stale], [registered!, up!, down!], { first: registered!.seq, last: registered!.seq });
  assert.equal(reader.events().map((event) => event.version), [0]);
  reader.event(up!);
  reader.event(down!);
  assert.equal(reader.events().map((event) => `${event.version}@${event.seq}`), [registered!, up!, down!].map((event) => `${event.version}@${event.seq}`));
  assert.is(reader.get(id)!.statusInfo.status, 'DOWN');
  // Published once the log's delivery has returned, in order.
  await new Promise(setImmediate);
  assert.equal(changes.map((change) => change.event.version), [1, 2]);
});

test('applications group registered instances by name', async () => {
  const { registry } = await setup();
  const a = (await registry.register(reg({ healthUrl: 'http://a/health', metadata: { version: '0.2' } }))).id;
  const b = (await registry.register(reg({ healthUrl: 'http://b/health', metadata: { version: '0.1' } }))).id;
  await registry.register(reg({ name: 'other', healthUrl: 'http://c/health' }));
  await registry.apply(a, changeStatusCommand(statusInfo('UP')));
  await registry.apply(b, changeStatusCommand(statusInfo('DOWN')));
  const shop = registry.applications().find((app) => app.name === 'shop')!;
  assert.is(shop.status, 'RESTRICTED');
  assert.is(shop.buildVersion, '0.1 ... 0.2');
  assert.equal(shop.instances.map((i) => i.id).sort(), [a, b].sort());
  await registry.deregister(a);
  await registry.deregister(b);
  assert.equal(registry.applications().map((app) => app.name), ['other']);
  const gone = registry.application('shop');
  assert.equal(gone.instances, []);
  assert.is(gone.status, 'UNKNOWN');
  assert.is(gone.statusTimestamp, '1970-01-01T00:00:00.000Z');
});

test('retention: a deregistered instance and its events are dropped after the retention, unless re-registered', async () => {
  const { registry } = await setup(1);
  const gone = (await registry.register(reg({ healthUrl: 'http://gone/health' }))).id;
  const back = (await registry.register(reg({ healthUrl: 'http://back/health' }))).id;
  await registry.deregister(gone);
  await registry.deregister(back);
  await registry.register(reg({ healthUrl: 'http://back/health' }));
  await eventually(() => registry.get(gone) === undefined, 'the deregistered instance to be dropped');
  assert.equal(registry.eventsOf(gone), []);
  assert.ok(registry.get(back)?.registered);
  assert.is(registry.eventsOf(back).length, 3);
  assert.is(await registry.deregister(gone), false);
  registry.dispose();
});

test('max deregistered instances: the oldest deregistrations are dropped first; registered and re-registered ones never', async () => {
  const { registry, changes } = await setup(60_000, undefined, 3);
  const ids: string[] = [];
  for (let n = 1; n <= 7; n += 1) ids.push((await registry.register(reg({ healthUrl: `http://pod-${n}/health` }))).id);
  for (const id of ids.slice(0, 5)) assert.ok(await registry.deregister(id));
  assert.equal(ids.map((id) => registry.get(id)?.registered), [undefined, undefined, false, false, false, true, true]);
  assert.equal(registry.eventsOf(ids[0]!), []);
  assert.equal([...new Set(registry.events().map((event) => event.instance))], ids.slice(2));
  assert.is(await registry.deregister(ids[0]!), false, 'a dropped instance is unknown');
  // Re-registered, an instance leaves the deregistered ones: three are deregistered again only after two more leave.
  await registry.register(reg({ healthUrl: 'http://pod-3/health' }));
  await registry.deregister(ids[5]!);
  assert.equal(ids.map((id) => registry.get(id)?.registered), [undefined, undefined, true, false, false, false, true]);
  await registry.deregister(ids[6]!);
  assert.equal(ids.map((id) => registry.get(id)?.registered), [undefined, undefined, true, undefined, false, false, false]);
  // A dropped instance that comes back starts a new history at version 0, as after the retention.
  const back = await registry.register(reg({ healthUrl: 'http://pod-1/health' }));
  assert.is(back.event?.type, 'REGISTERED');
  assert.is(back.event?.version, 0);
  assert.is(changes.filter((change) => change.event.type === 'DEREGISTERED').length, 7, 'every DEREGISTERED was published before its drop');
  registry.dispose();
});

test('max deregistered instances 0: a deregistered instance is forgotten at once', async () => {
  const { registry } = await setup(60_000, undefined, 0);
  const { id } = await registry.register(reg());
  assert.ok(await registry.deregister(id));
  assert.is(registry.get(id), undefined);
  assert.equal(registry.events(), []);
  registry.dispose();
});

/** `count` instances registered, checked UP, detected, read, then deregistered in order; their ids. */
async function comeAndGo(registry: InstanceRegistry, count: number, prefix = 'pod'): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const { id } = await registry.register(reg({ healthUrl: `http://${prefix}-${n}:8080/actuator/health`, managementUrl: `http://${prefix}-${n}:8080/actuator`, metadata: { 'tags.env': 'test' } }));
    await registry.apply(id, changeStatusCommand(statusInfo('UP', { db: { status: 'UP' } })));
    await registry.apply(id, detectEndpointsCommand([{ id: 'env', url: `http://${prefix}-${n}:8080/actuator/env` }]));
    await registry.apply(id, changeInfoCommand({ build: { version: `1.${n}` } }));
    await registry.deregister(id);
    ids.push(id);
  }
  return ids;
}

test('deregistered instances beyond the latest 64 are held sealed, and read as before: get, events, eventsOf, eventsSince, eventCount', async () => {
  // Two registries with one clock and the same writes hold the same; `plain` is read while all of them are still objects.
  const clock = () => 1_800_000_000_000;
  const { registry: plain } = await setup(60_000, clock);
  const { registry } = await setup(60_000, clock);
  const objects = (await comeAndGo(plain, 64)).map((id) => wireForm(plain.get(id)));
  await comeAndGo(plain, 6, 'later');
  const ids = [...await comeAndGo(registry, 64), ...await comeAndGo(registry, 6, 'later')];
  const sealedOnes = ids.slice(0, 6);
  // Held as an object, an instance reads as the same object each time; sealed, it is rebuilt for each read.
  assert.not.ok(registry.get(ids[5]!) === registry.get(ids[5]!), 'the 6th oldest deregistration is sealed');
  assert.ok(registry.get(ids[6]!) === registry.get(ids[6]!), 'the latest 64 are objects');
  assert.equal(ids.slice(0, 64).map((id) => wireForm(registry.get(id))), objects);
  assert.equal(registry.get(ids[0]!)!.registration!.healthUrl, 'http://pod-0:8080/actuator/health');
  assert.is(registry.get(ids[0]!)!.registered, false);
  assert.equal(wireForm(registry.events()), wireForm(plain.events()));
  assert.is(registry.eventCount, 70 * 5);
  assert.equal(wireForm(registry.eventsOf(ids[3]!)), wireForm(plain.eventsOf(ids[3]!)));
  const middle = registry.eventsOf(ids[2]!)[2]!.seq;
  assert.equal(wireForm(registry.eventsSince(middle)), wireForm(plain.eventsSince(middle)));
  assert.equal(registry.list(), []);
  for (const id of sealedOnes) assert.ok(await registry.deregister(id), 'a sealed id answers again');
  assert.is(registry.eventCount, 70 * 5, 'and records nothing');
  registry.dispose();
  plain.dispose();
});

test('a sealed instance that comes back continues its versions and its history', async () => {
  const { registry, changes } = await setup();
  const ids = await comeAndGo(registry, 66);
  const again = await registry.register(reg({ healthUrl: 'http://pod-0:8080/actuator/health', managementUrl: 'http://pod-0:8080/actuator', metadata: { 'tags.env': 'test' } }));
  assert.is(again.id, ids[0]);
  assert.is(again.event?.type, 'REGISTERED');
  assert.is(again.event?.version, 5);
  assert.is(changes.at(-1)!.previous.version, 4, 'the change starts from the sealed instance');
  assert.is(changes.at(-1)!.previous.registered, false);
  assert.ok(registry.get(ids[0]!)!.registered);
  assert.equal(registry.eventsOf(ids[0]!).map((event) => event.version), [0, 1, 2, 3, 4, 5]);
  assert.equal(registry.list().map((instance) => instance.id), [ids[0]]);
  registry.dispose();
});

test('the retention drops sealed histories too', async () => {
  const { registry } = await setup(1);
  // The retention's timers fire only once this loop, which never leaves its turn, is done: by then 2 are sealed.
  const ids = await comeAndGo(registry, 66);
  assert.is(registry.eventCount, 66 * 5);
  await eventually(() => registry.eventCount === 0, 'every deregistered history to be dropped');
  assert.is(registry.get(ids[0]!), undefined);
  assert.equal(registry.eventsOf(ids[0]!), []);
  assert.is(await registry.deregister(ids[0]!), false);
  registry.dispose();
});

test('load: deregistered instances beyond the latest 64 are sealed as they are loaded', async () => {
  const { registry: writer } = await setup();
  const ids = await comeAndGo(writer, 70);
  const snapshots = ids.map((id) => writer.get(id)!);
  const { registry: reader } = await setup();
  // As a shared log hands them over: read back from JSON, no value shared with this node's.
  reader.load(wireForm(snapshots) as Instance[], writer.events(), { first: writer.events()[0]!.seq, last: writer.lastSeq });
  assert.equal(ids.map((id) => wireForm(reader.get(id))), snapshots.map((instance) => wireForm(instance)));
  assert.not.ok(reader.get(ids[5]!) === reader.get(ids[5]!), 'the 6th oldest is sealed');
  assert.ok(reader.get(ids[6]!) === reader.get(ids[6]!), 'the latest 64 are objects');
  assert.equal(wireForm(reader.events()), wireForm(writer.events()));
  assert.ok(await reader.deregister(ids[0]!));
  reader.dispose();
  writer.dispose();
});

test.run();
