import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus } from '../../core/bus.js';
import type { RemoteHistories } from '../../core/contract/event-log.js';
import { changeInfoCommand, changeStatusCommand, detectEndpointsCommand } from '../../core/store/commands.js';
import { createJsonViews } from '../../core/kits/views/index.js';
import { MemoryEventLog } from '../../core/store/memory-event-log.js';
import { InstanceRegistry } from '../../core/store/registry.js';
import type { Endpoint, Registration } from '../../core/store/types.js';

/**
 * A node whose log serves histories (a cluster node) holds the snapshot of every instance but the
 * history only of some: the others' snapshots are held compactly, and read exactly as before.
 */

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
const oneNode = { lease: () => ({ held: true, token: 1 }) };
const IDS = ['health', 'info', 'env', 'metrics', 'loggers', 'threaddump', 'heapdump', 'prometheus', 'configprops', 'mappings'];

/** The in-memory log, serving the histories of the ids `held` names (the rest "remote", never read here). */
class SharingLog extends MemoryEventLog {
  constructor(held: (id: string) => boolean, window = 4) {
    super(1);
    this.histories = { window, holds: held, read: async function* () { /* nothing older */ }, readInstance: async () => [] };
  }

  readonly histories: RemoteHistories;
}

function registration(n: number): Registration {
  const base = `http://10.0.${n >> 8}.${n & 255}:8080`;
  return { name: `app-${n % 3}`, healthUrl: `${base}/actuator/health`, managementUrl: `${base}/actuator`, serviceUrl: `${base}/`, source: 'http-api', metadata: { 'tags.team': 'blue' } };
}

function endpointsOf(reg: Registration, extra?: Endpoint): Endpoint[] {
  return [...IDS.map((id) => ({ id, url: `${reg.managementUrl}/${id}` })), ...(extra ? [extra] : [])];
}

async function registry(held: (id: string) => boolean, window?: number) {
  // One clock for both registries compared: their events are stamped alike.
  const reg = new InstanceRegistry(new EventBus(() => undefined), { retentionAfterDeregistration: 60_000, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet, now: () => Date.UTC(2026, 10, 26) });
  await reg.open(new SharingLog(held, window), oneNode);
  return reg;
}

test('a snapshot held compactly reads and serialises as the full one: every field, the endpoints\' ids and URLs, toJSON, the wire view', async () => {
  const full = await registry(() => true);
  const compact = await registry(() => false);
  const views = createJsonViews([]);
  for (const n of [1, 2]) {
    const reg = registration(n);
    // The second lists one endpoint elsewhere: held as it is.
    const endpoints = endpointsOf(reg, n === 2 ? { id: 'custom', url: 'http://elsewhere:9000/custom' } : undefined);
    for (const target of [full, compact]) {
      const { id } = await target.register(reg);
      await target.apply(id, detectEndpointsCommand(endpoints));
    }
    const { id } = await full.register(reg);
    const a = full.get(id)!;
    const b = compact.get(id)!;
    assert.equal(b.endpoints.map((e) => [e.id, e.url]), endpoints.map((e) => [e.id, e.url]));
    assert.equal(JSON.parse(JSON.stringify(b)), JSON.parse(JSON.stringify(a)));
    assert.equal(JSON.parse(JSON.stringify(views.instance(b))), JSON.parse(JSON.stringify(views.instance(a))));
    for (const key of ['id', 'version', 'registered', 'statusInfo', 'statusTimestamp', 'info', 'buildVersion', 'tags'] as const) {
      assert.equal(b[key], a[key], key);
    }
    // The registration is held packed (its URLs built when read): each field reads as the full one's.
    for (const key of ['name', 'managementUrl', 'healthUrl', 'serviceUrl', 'source', 'metadata'] as const) {
      assert.equal(b.registration![key], a.registration![key], `registration.${key}`);
    }
  }
});

test('a snapshot is as small whether or not the node holds its history; a held history adds its events, not the endpoints again', async () => {
  // A process of its own with --expose-gc, so the heap is measured after full collections.
  const registryUrl = new URL('../../core/store/registry.js', import.meta.url).href;
  const script = `
    const { InstanceRegistry } = await import(${JSON.stringify(registryUrl)});
    const { EventBus } = await import(${JSON.stringify(new URL('../../core/bus.js', import.meta.url).href)});
    const { MemoryEventLog } = await import(${JSON.stringify(new URL('../../core/store/memory-event-log.js', import.meta.url).href)});
    const { detectEndpointsCommand } = await import(${JSON.stringify(new URL('../../core/store/commands.js', import.meta.url).href)});
    const quiet = { error() {}, warn() {}, info() {}, debug() {}, child() { return quiet; } };
    const IDS = ${JSON.stringify(IDS)};
    const N = 4000;
    const held = process.argv[1] === 'held';
    const log = new MemoryEventLog(1);
    log.histories = { window: 1, holds: () => held, read: async function* () {}, readInstance: async () => [] };
    const registry = new InstanceRegistry(new EventBus(() => undefined), { retentionAfterDeregistration: 60000, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet, now: () => ${Date.UTC(2026, 10, 26)} });
    await registry.open(log, { lease: () => ({ held: true, token: 1 }) });
    const add = async (from, to) => {
      for (let n = from; n < to; n += 1) {
        const base = 'http://10.' + (n >> 16) + '.' + ((n >> 8) & 255) + '.' + (n & 255) + ':8080';
        const reg = { name: 'app-' + (n % 3), healthUrl: base + '/actuator/health', managementUrl: base + '/actuator', serviceUrl: base + '/', source: 'http-api', metadata: {} };
        const { id } = await registry.register(reg);
        await registry.apply(id, detectEndpointsCommand(IDS.map((e) => ({ id: e, url: base + '/actuator/' + e }))));
      }
    };
    // A warm-up first: the code's one-time costs (bytecode, feedback) are not the instances'.
    await add(N, N + 500);
    gc(); gc();
    const before = process.memoryUsage().heapUsed;
    await add(0, N);
    gc(); gc();
    const bytes = Math.round((process.memoryUsage().heapUsed - before) / N);
    // The registry is used after the measurement: left unused, optimised code may let it be
    // collected before the last gc(), and the figure is then only the module-level caches.
    process.stdout.write(JSON.stringify({ bytes, instances: registry.list().length, events: registry.events().length }));
  `;
  const perInstance = async (mode: string) => {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--expose-gc', '--input-type=module', '-e', script, mode], { timeout: 60_000 });
    let measured: { bytes: number; instances: number; events: number };
    try {
      measured = JSON.parse(stdout) as typeof measured;
    } catch {
      throw new Error(`the measuring process printed ${JSON.stringify(stdout)}: ${stderr}`);
    }
    assert.is(measured.instances, 4500, mode);
    // Held: each instance's REGISTERED and ENDPOINTS_DETECTED.
    if (mode === 'held') assert.is(measured.events, 9000);
    return measured.bytes;
  };
  const remote = await perInstance('remote');
  const held = await perInstance('held');
  // Without their histories the endpoints were still each snapshot's own ten objects (~500 bytes);
  // with them, the snapshot and its ENDPOINTS_DETECTED event shared those ten objects: 763-790 bytes
  // more, against 180-420 since (each figure moves by ~100 bytes from run to run).
  console.log(`  ${remote} bytes per instance without its history, ${held} with it`);
  assert.ok(remote < 900, `${remote} bytes per instance without its history`);
  assert.ok(held - remote < 600, `a held history of two events adds ${held - remote} bytes per instance (${held} against ${remote})`);
});

test('a history taken up (ownership moved here) is held whole and read as the full one; one let go leaves the snapshot, compactly, and the recent window', async () => {
  const held = new Set<string>();
  const full = await registry(() => true);
  const sharing = await registry((id) => held.has(id), 2);
  const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as unknown;
  const ids: string[] = [];
  for (const n of [1, 2]) {
    const reg = registration(n);
    for (const target of [full, sharing]) {
      const { id } = await target.register(reg);
      await target.apply(id, detectEndpointsCommand(endpointsOf(reg)));
      await target.apply(id, changeStatusCommand({ status: 'UP', details: {} }));
      if (target === full) ids.push(id);
    }
  }
  const [a, b] = ids as [string, string];
  assert.equal(sharing.events(), [], 'nothing held before');
  // `a` falls to this node: its whole history, as the log read it, is held from now on.
  held.add(a);
  sharing.acquired(new Map([[a, full.eventsOf(a)]]));
  assert.equal(json(sharing.eventsOf(a)), json(full.eventsOf(a)));
  assert.equal(json(sharing.events()), json(full.events().filter((e) => e.instance === a)));
  assert.is(sharing.eventCount, full.eventsOf(a).length);
  assert.equal(json(sharing.get(a)), json(full.get(a)));
  // Events after it join the held history, in order; those of `b` do not.
  for (const target of [full, sharing]) {
    await target.apply(a, changeStatusCommand({ status: 'DOWN', details: {} }));
    await target.apply(b, changeStatusCommand({ status: 'DOWN', details: {} }));
    await target.apply(b, changeInfoCommand({ build: { version: '2.1.0' }, tags: { zone: 'b' } }));
  }
  // A status or info change of one held compactly keeps its endpoints as held: it still reads as the full one.
  assert.equal(json(sharing.get(b)), json(full.get(b)));
  assert.is(sharing.get(b)!.endpoints.length, IDS.length);
  assert.equal(json(sharing.eventsOf(a)), json(full.eventsOf(a)));
  assert.equal(json(sharing.events()), json(full.events().filter((e) => e.instance === a)));
  // Let go again: the snapshot stays as it reads, the history is the recent window's.
  held.delete(a);
  sharing.released(a);
  assert.equal(sharing.events(), []);
  assert.is(sharing.eventCount, 0);
  assert.equal(json(sharing.get(a)), json(full.get(a)));
  assert.equal(sharing.eventsOf(a), [], 'the newest two events of all are of b');
  assert.equal(sharing.list().map((i) => i.id).sort(), [a, b].sort());
});

test.run();
