import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus } from '../../../core/bus.js';
import { SINGLE_NODE_LEASES } from '../../../core/contract/coordination.js';
import { LocalSharedState } from '../../../core/contract/shared-state.js';
import { changeStatusCommand, type Logger } from '../../../core/plugin-api.js';
import { MemoryEventLog } from '../../../core/store/memory-event-log.js';
import { InstanceRegistry } from '../../../core/store/registry.js';
import { MaintenanceStore } from '../../../plugins/notify/maintenance/store.js';
import { MaintenanceTracker } from '../../../plugins/notify/maintenance/tracker.js';

/*
 * A window is [start, end) in the time of the recorded events: the pipeline holds back a change
 * whose timestamp is inside it, and the end-of-window report must count exactly those changes, so
 * each change is told once, either by the report or on its own. The registry, the window store and
 * the tracker share one fake clock here, so a change can land in the very millisecond a window
 * begins or ends.
 */

const quiet: Logger = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
const T = Date.parse('2027-01-04T10:00:00.000Z');
const HOUR = 3_600_000;

async function clocked() {
  let now = T;
  const registry = new InstanceRegistry(new EventBus(() => undefined), {
    retentionAfterDeregistration: HOUR, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet, now: () => now,
  });
  await registry.open(new MemoryEventLog(1), SINGLE_NODE_LEASES);
  const state = new LocalSharedState();
  const store = new MaintenanceStore({ state: () => state, recurring: () => [], maxWindows: () => 10, now: () => now });
  const reported: string[] = [];
  const tracker = new MaintenanceTracker({
    store, registry, state: () => state, leases: () => SINGLE_NODE_LEASES, channels: [], log: quiet, now: () => now,
    report: async (changes, facts) => {
      for (const change of changes) reported.push(`${change.from}→${change.to} after ${facts.id}`);
    },
  });
  const registration = { name: 'orders', healthUrl: 'http://127.0.0.1:9/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} };
  const { id } = await registry.register(registration);
  return {
    id, registry, state, store, tracker, reported,
    now: () => now,
    /** Moves the clock to `T + ms`. */
    at(ms: number) {
      now = T + ms;
    },
    set: async (status: string) => void await registry.apply(id, changeStatusCommand({ status, details: {} })),
    window: async (start: number, end: number) => (await store.create({ applications: ['orders'], instances: [], start: T + start, end: T + end, reason: '' }, 'test')).id,
    /** Whether the pipeline holds back a change recorded at `T + ms` (else it is notified on its own). */
    heldAt: async (ms: number) => (await store.covering(id, 'orders', T + ms)) !== undefined,
  };
}

test('a change in the very millisecond a window is deleted is notified on its own, not also by the end report', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  const id = await t.window(1000, HOUR);
  await t.tracker.tick();
  t.at(5000);
  await t.set('DOWN');
  assert.is(await t.store.end(id), 'ended');
  assert.is(t.registry.get(t.id)!.statusTimestamp, new Date(T + 5000).toISOString(), 'the change and the end share their millisecond');
  await t.tracker.tick();
  assert.ok(await t.heldAt(4999), 'the window ran until just before');
  assert.not.ok(await t.heldAt(5000), 'the change is after the window: it goes out on its own');
  assert.equal(t.reported, [], 'so the report does not count it');
});

test('an outage inside a window, over in the millisecond the window is deleted: the report tells the outage, the recovery goes out on its own', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  const id = await t.window(1000, HOUR);
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  assert.ok(await t.heldAt(3000));
  t.at(5000);
  await t.set('UP');
  await t.store.end(id);
  await t.tracker.tick();
  assert.not.ok(await t.heldAt(5000));
  assert.equal(t.reported, [`UP→DOWN after ${id}`]);
});

test('in a cluster: a node whose copy of the windows was read before a deletion does not hold back a change made after it', async () => {
  const t = await clocked();
  // Another node's store: its copy is at most a second old, so it may not know yet of a deletion made on this one.
  const other = new MaintenanceStore({ state: () => t.state, recurring: () => [], maxWindows: () => 10, now: () => t.now() });
  const heldThere = async (ms: number) => (await other.covering(t.id, 'orders', T + ms)) !== undefined;
  await t.set('UP');
  t.at(1000);
  const id = await t.window(1000, HOUR);
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  assert.ok(await heldThere(3000));
  t.at(4000);
  await t.store.end(id);
  await t.tracker.tick();
  assert.equal(t.reported, [`UP→DOWN after ${id}`]);
  t.at(4500);
  await t.set('UP');
  // Held back there, it would be told by nobody: the report counts what came before the end.
  assert.not.ok(await heldThere(4500), 'the recovery goes out on its own');
  assert.ok(await heldThere(3999), 'a change from before the end stays held back');
});

test('a change in the millisecond a window runs out is not in its report', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  await t.window(1000, 5000);
  await t.tracker.tick();
  t.at(5000);
  await t.set('DOWN');
  await t.tracker.tick();
  assert.not.ok(await t.heldAt(5000), 'the change is after the window: it goes out on its own');
  assert.equal(t.reported, [], 'so the report does not count it');
});

test('a change in the millisecond a window begins is inside it: held back, and told by the end report', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  await t.set('DOWN');
  const id = await t.window(1000, 5000);
  await t.tracker.tick();
  assert.ok(await t.heldAt(1000), 'held back');
  t.at(5000);
  await t.tracker.tick();
  assert.equal(t.reported, [`UP→DOWN after ${id}`]);
});

test('an end report made late tells the status at the end, not what came after it (a window that ran out)', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  const id = await t.window(1000, 5000);
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  // After the end, before the tracker's next round: notified on its own.
  t.at(7000);
  await t.set('UP');
  t.at(8000);
  await t.set('OUT_OF_SERVICE');
  t.at(9000);
  await t.tracker.tick();
  assert.equal(t.reported, [`UP→DOWN after ${id}`]);
});

test('an end report made late tells the status at the end, not what came after it (a window deleted early)', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  const quietWindow = await t.window(1000, HOUR);
  const busyWindow = await t.store.create({ applications: [], instances: [t.id], start: T + 1000, end: T + HOUR, reason: '' }, 'test');
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  t.at(4000);
  await t.store.end(quietWindow);
  await t.store.end(busyWindow.id);
  // After both ends: notified on its own.
  t.at(6000);
  await t.set('UP');
  t.at(9000);
  await t.tracker.tick();
  // The instance was in both windows: the first to end hands its status before it on to the other, which reports it.
  assert.equal(t.reported, [`UP→DOWN after ${busyWindow.id}`]);
});

test('two windows over one instance ending in the same round (the same millisecond): one report, not one per window', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  await t.window(1000, 5000);
  t.at(2000);
  const second = await t.store.create({ applications: [], instances: [t.id], start: T + 2000, end: T + 5000, reason: '' }, 'test');
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  t.at(5000);
  await t.tracker.tick();
  // The first hands its status before it on to the second, which ends in the same millisecond and reports.
  assert.equal(t.reported, [`UP→DOWN after ${second.id}`]);
});

test('an end report made late: an instance deregistered inside the window and back after it is not reported', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  await t.window(1000, 5000);
  await t.tracker.tick();
  t.at(3000);
  await t.registry.deregister(t.id);
  t.at(7000);
  await t.registry.register({ name: 'orders', healthUrl: 'http://127.0.0.1:9/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} });
  await t.set('DOWN');
  t.at(9000);
  await t.tracker.tick();
  assert.equal(t.reported, []);
});

test('an end report made late: a window that began after the end of another does not take over its report', async () => {
  const t = await clocked();
  await t.set('UP');
  t.at(1000);
  const first = await t.window(1000, 5000);
  await t.tracker.tick();
  t.at(3000);
  await t.set('DOWN');
  t.at(6000);
  await t.window(6000, HOUR);
  t.at(7000);
  await t.tracker.tick();
  assert.equal(t.reported, [`UP→DOWN after ${first}`]);
});

test.run();
