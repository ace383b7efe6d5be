import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus, type InstanceChange } from '../../core/bus.js';
import type { EventLog, Fence, InstanceTransition, LogReceiver, NewEvent } from '../../core/contract/event-log.js';
import { changeInfoCommand, changeStatusCommand, detectEndpointsCommand, type Command } from '../../core/store/commands.js';
import { MemoryEventLog } from '../../core/store/memory-event-log.js';
import { InstanceRegistry } from '../../core/store/registry.js';
import { statusInfo } from '../../core/store/status.js';
import type { InstanceEvent, Registration } from '../../core/store/types.js';

/**
 * The write path: a command decided once on the snapshot, folded once into the transition the
 * log gets, and that transition held and published, after the writer's call, in `seq` order.
 */

const quiet = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => quiet };
const oneNode = { lease: () => ({ held: true, token: 1 }) };

/** The memory log, recording what each append was handed. */
class RecordingLog implements EventLog {
  readonly inner = new MemoryEventLog(1);
  readonly changes: InstanceTransition[] = [];
  /** Set to hand the registry no transition back (a log that cannot tell its own appends). */
  forgetful = false;
  receiver: LogReceiver | undefined;

  open(receiver: LogReceiver): Promise<void> {
    this.receiver = receiver;
    return this.inner.open({
      load: (...args) => receiver.load(...args),
      event: (event, change) => receiver.event(event, this.forgetful ? undefined : change),
      dropped: (id) => receiver.dropped(id),
    });
  }

  append(event: NewEvent, change: InstanceTransition, _fence?: Fence): Promise<InstanceEvent> {
    this.changes.push(change);
    return this.inner.append(event, change);
  }

  drop(id: string): Promise<void> {
    return this.inner.drop(id);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

async function setup() {
  const bus = new EventBus(() => undefined);
  const registry = new InstanceRegistry(bus, { retentionAfterDeregistration: 60_000, maxDetailsBytes: 65536, maxEventsPerInstance: 100, log: quiet });
  const log = new RecordingLog();
  await registry.open(log, oneNode);
  return { bus, registry, log };
}

function reg(overrides: Partial<Registration> = {}): Registration {
  return {
    name: 'shop',
    healthUrl: 'http://localhost:8080/actuator/health',
    managementUrl: 'http://localhost:8080/actuator',
    serviceUrl: null,
    source: 'http-api',
    metadata: {},
    ...overrides,
  };
}

/** Every microtask queued so far has run (the bus delivers posted events in one). */
const delivered = () => new Promise(setImmediate);

test('instance.changed reaches subscribers after the writing call returned, never inside it; the write resolves with the copy holding it', async () => {
  const { bus, registry } = await setup();
  const seen: { seq: number; held: boolean }[] = [];
  bus.on('instance.changed', ({ event }) => void seen.push({ seq: event.seq, held: registry.get(event.instance)?.version === event.version }));
  const writing = registry.register(reg());
  assert.equal(seen, [], 'no subscriber ran inside register()');
  const { id, event } = await writing;
  assert.ok(registry.get(id)?.registered, 'a read right after the write sees it');
  assert.equal(seen, [{ seq: event!.seq, held: true }], 'delivered once, with the copy already holding it');
});

test('a handler that records an event: every subscriber gets both in seq order, each once', async () => {
  const { bus, registry } = await setup();
  const first: number[] = [];
  const last: number[] = [];
  bus.on('instance.changed', ({ event }) => {
    first.push(event.seq);
    // Recorded from inside the REGISTERED handler, before the next subscriber heard of REGISTERED.
    if (event.type === 'REGISTERED') void registry.apply(event.instance, changeInfoCommand({ echoed: true }));
  });
  bus.on('instance.changed', ({ event }) => void last.push(event.seq));
  const { id } = await registry.register(reg());
  await delivered();
  const seqs = registry.eventsOf(id).map((event) => event.seq);
  assert.equal(registry.eventsOf(id).map((event) => event.type), ['REGISTERED', 'INFO_CHANGED']);
  assert.equal(first, seqs);
  assert.equal(last, seqs, 'the subscriber after the writing one: REGISTERED first');
});

test('posted events: a microtask later, one to every handler before the next, in the order posted; a failing handler stalls nothing', async () => {
  const reported: string[] = [];
  const bus = new EventBus((name) => void reported.push(name));
  const heard: string[] = [];
  bus.on('instances.refresh-requested', ({ reason }) => {
    heard.push(`a:${reason}`);
    if (reason === 'one') bus.post('instances.refresh-requested', { reason: 'nested' });
    if (reason === 'two') throw new Error('a failing handler');
  });
  bus.on('instances.refresh-requested', ({ reason }) => void heard.push(`b:${reason}`));
  bus.post('instances.refresh-requested', { reason: 'one' });
  bus.post('instances.refresh-requested', { reason: 'two' });
  bus.post('instances.refresh-requested', { reason: 'three' });
  assert.equal(heard, [], 'nothing runs in the poster\'s stack');
  await delivered();
  assert.equal(heard, ['a:one', 'b:one', 'a:two', 'b:two', 'a:three', 'b:three', 'a:nested', 'b:nested']);
  assert.equal(reported, ['instances.refresh-requested']);
});

test('the transition handed to the log is the snapshot held and published: each event folded once', async () => {
  const { bus, registry, log } = await setup();
  const published: InstanceChange[] = [];
  bus.on('instance.changed', (change) => void published.push(change));
  const { id } = await registry.register(reg());
  await registry.apply(id, changeStatusCommand(statusInfo('UP')));
  await registry.apply(id, detectEndpointsCommand([{ id: 'info', url: 'http://localhost:8080/actuator/info' }, { id: 'env', url: 'http://elsewhere/env' }]));
  await registry.apply(id, changeInfoCommand({ build: { version: '1.0' } }));
  await registry.register(reg({ metadata: { zone: 'a' } }));
  const beforeLeaving = registry.get(id);
  await registry.deregister(id);
  await delivered();
  assert.is(log.changes.length, 6);
  assert.is(published.length, 6);
  log.changes.forEach((change, index) => {
    assert.is(published[index]!.instance, change.after, `event ${index}: the published instance is the transition's`);
    assert.is(published[index]!.previous, change.before, `event ${index}: and so is the one before`);
  });
  assert.is(log.changes[5]!.before, beforeLeaving);
  assert.is(registry.get(id), log.changes[5]!.after, 'the snapshot held is the last transition');
  // The endpoints were put in their held form before the fold: the event and the snapshot share them.
  const endpoints = published[2]!;
  assert.is(endpoints.event.type === 'ENDPOINTS_DETECTED' && endpoints.event.endpoints, endpoints.instance.endpoints);
  assert.equal(Object.keys(endpoints.instance.endpoints[0]!), ['id'], 'held under the management URL');
  assert.is(endpoints.instance.endpoints[0]!.url, 'http://localhost:8080/actuator/info');
});

test('without a transition handed back, or with one decided on a snapshot replaced since, the event is folded on what is held', async () => {
  const { registry, log } = await setup();
  log.forgetful = true;
  const { id } = await registry.register(reg());
  await registry.apply(id, changeStatusCommand(statusInfo('UP')));
  assert.is.not(registry.get(id), log.changes[1]!.after);
  assert.equal(registry.get(id), log.changes[1]!.after, 'folded to the same instance');

  // A reload replaces the snapshot (same version, other content) while an append is on its way.
  log.forgetful = false;
  const held = registry.get(id)!;
  // Snapshots are held compactly: a spread copies no endpoints (a getter), so they are named.
  const replaced = { ...held, endpoints: held.endpoints, info: { reloaded: true } };
  const receiver = log.receiver!;
  let deliver: (() => void) | undefined;
  log.receiver = undefined;
  await log.inner.close();
  await log.inner.open({
    load: () => undefined,
    dropped: () => undefined,
    event: (event, change) => {
      deliver = () => receiver.event(event, change);
    },
  });
  const writing = registry.apply(id, changeStatusCommand(statusInfo('DOWN')));
  receiver.load([replaced], registry.events(), { first: 1, last: registry.lastSeq });
  deliver!();
  await writing;
  const after = registry.get(id)!;
  assert.is(after.statusInfo.status, 'DOWN');
  assert.equal(after.info, { reloaded: true }, 'folded on the reloaded snapshot, not the transition decided before it');
});

test('register with a turn: an equal heartbeat records nothing and never waits; a change waits, and records nothing if an equal one got in meanwhile', async () => {
  const { registry, log } = await setup();
  const turns: (() => void)[] = [];
  const turn = () => new Promise<void>((resolve) => void turns.push(resolve));
  const first = registry.register(reg(), { turn });
  const second = registry.register(reg(), { turn });
  await delivered();
  assert.is(turns.length, 2, 'both decided on a change and wait');
  assert.is(log.changes.length, 0, 'nothing appended before the turn');
  turns.shift()!();
  assert.is((await first).event?.type, 'REGISTERED');
  turns.shift()!();
  assert.equal(await second, { id: (await first).id, event: null }, 'it became a heartbeat while waiting');
  assert.is(log.changes.length, 1, 'decided again on the newer snapshot, not appended to lose a race');
  assert.equal(await registry.register(reg(), { turn }), { id: (await first).id, event: null });
  assert.is(turns.length, 0, 'an equal heartbeat never waited');
  const updating = registry.register(reg({ metadata: { zone: 'a' } }), { turn });
  await delivered();
  turns.shift()!();
  assert.is((await updating).event?.type, 'REGISTRATION_UPDATED');
});

test('a command waiting for its turn is decided once when nothing moved meanwhile, again when something did', async () => {
  const { registry, log } = await setup();
  const { id } = await registry.register(reg());
  const turns: (() => void)[] = [];
  const turn = () => new Promise<void>((resolve) => void turns.push(resolve));
  let runs = 0;
  // Notes the info once, unless the instance is UP by then.
  const unlessUp: Command = (current) => {
    runs += 1;
    return current.registered && current.statusInfo.status !== 'UP' ? { type: 'INFO_CHANGED', info: { noted: runs } } : null;
  };
  const quiet = registry.apply(id, unlessUp, { turn });
  assert.is(runs, 1);
  turns.shift()!();
  assert.is((await quiet)?.type, 'INFO_CHANGED');
  assert.is(runs, 1, 'not decided again after the wait');

  const moved = registry.apply(id, unlessUp, { turn });
  assert.is(runs, 2);
  await registry.apply(id, changeStatusCommand(statusInfo('UP')));
  turns.shift()!();
  assert.is(await moved, null, 'decided again on the newer snapshot, where it records nothing');
  assert.is(runs, 3);
  assert.equal(log.changes.map((change) => change.after.version), [0, 1, 2]);
});

test.run();
