import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger, Registry } from '../../../core/plugin-api.js';
import type { Instance } from '../../../core/domain/index.js';
import { OfflineRemoval } from '../../../plugins/monitor/offline-removal.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { eventually } from '../../support/http.js';
import { eventOf, monitorKernel, register } from './support.js';

/** A registry holding one instance, as OfflineRemoval reads it, that records deregistrations. */
function oneInstance(status: string, since: string, source = 'http-api'): { registry: Registry; deregistered: string[] } {
  const deregistered: string[] = [];
  const instance = {
    id: 'a1', registered: true, statusInfo: { status, details: {} }, statusTimestamp: since,
    registration: { name: 'orders', healthUrl: 'http://h/health', managementUrl: null, serviceUrl: null, source, metadata: {} },
  } as unknown as Instance;
  const registry = {
    get: (id: string) => (id === 'a1' ? instance : undefined),
    deregister: async (id: string) => {
      deregistered.push(id);
      return true;
    },
  } as unknown as Registry;
  return { registry, deregistered };
}

const lines: string[] = [];
const log: Logger = {
  error: (m) => lines.push(m), warn: (m) => lines.push(m), info: (m) => lines.push(m), debug: () => undefined, child: () => log,
};

test('deregister-offline-after: OFFLINE without a break for the whole span goes, one millisecond less stays; 0 is off', async () => {
  const since = Date.parse('2026-11-01T10:00:00.000Z');
  let now = since + 599_999;
  const { registry, deregistered } = oneInstance('OFFLINE', new Date(since).toISOString());
  const removal = new OfflineRemoval(600_000, registry, log, () => now);
  assert.is(await removal.consider('a1'), false);
  assert.equal(deregistered, []);
  now += 1;
  assert.is(await removal.consider('a1'), true);
  assert.equal(deregistered, ['a1']);
  assert.ok(lines.includes('deregistered orders (a1): OFFLINE since 2026-11-01T10:00:00.000Z, longer than monitor.deregister-offline-after (10 min)'), lines.join('\n'));
  removal.reconfigure(0);
  assert.is(await removal.consider('a1'), false, 'off');
  assert.equal(deregistered, ['a1']);
});

test('deregister-offline-after: DOWN or UP for ever stays, and so does an OFFLINE instance a discovery source manages', async () => {
  const since = new Date(0).toISOString();
  for (const [status, source] of [['DOWN', 'http-api'], ['UP', 'http-api'], ['OFFLINE', 'discovery']] as const) {
    const { registry, deregistered } = oneInstance(status, since, source);
    assert.is(await new OfflineRemoval(1000, registry, log).consider('a1'), false, `${status} ${source}`);
    assert.equal(deregistered, []);
  }
});

test('deregister-offline-after: the monitor deregisters a dead instance (a DEREGISTERED event, a log line naming why); a discovered one and a live one stay', async () => {
  // An instance whose connections are reset: every check fails, so it is OFFLINE; each check is counted.
  const dead = await FakeActuator.start();
  let deadChecks = 0;
  dead.on('GET', '/health', { handler: (req) => { deadChecks += 1; req.socket.destroy(); } });
  const alive = await FakeActuator.start();
  const tk = await monitorKernel({ 'deregister-offline-after': '400ms', 'status-max-backoff': '100ms' });
  try {
    const discovered = (await tk.kernel.registry.register({
      name: 'discovered', healthUrl: `${dead.managementUrl}/discovered/health`, managementUrl: null, serviceUrl: null, source: 'discovery', metadata: {},
    })).id;
    dead.on('GET', '/discovered/health', { handler: (req) => { deadChecks += 1; req.socket.destroy(); } });
    const up = await register(tk, alive.registration('alive'));
    const id = await register(tk, dead.registration('dead'));
    await eventOf(tk, id, 'STATUS_CHANGED', (e) => e.statusInfo.status === 'OFFLINE');
    const gone = await eventOf(tk, id, 'DEREGISTERED', undefined, 5000);
    const offline = tk.kernel.registry.eventsOf(id).find((e) => e.type === 'STATUS_CHANGED' && e.statusInfo.status === 'OFFLINE')!;
    assert.ok(Date.parse(gone.timestamp) - Date.parse(offline.timestamp) >= 400, 'not before the span');
    // The line is written once the deregistration's write resolves, just after the event is out.
    await eventually(() => tk.logs().some((line) => line.includes(`deregistered dead (${id}): OFFLINE since ${offline.timestamp}, longer than monitor.deregister-offline-after (400 ms)`)), 'the log line');
    // The discovered instance was OFFLINE before the other one and is checked on: it stays.
    const checksNow = deadChecks;
    await eventually(() => deadChecks >= checksNow + 4, 'more checks of the discovered instance');
    assert.is(tk.kernel.registry.get(discovered)!.statusInfo.status, 'OFFLINE');
    assert.ok(tk.kernel.registry.get(discovered)!.registered, 'left to its source');
    assert.ok(tk.kernel.registry.get(up)!.registered);
    assert.is(tk.kernel.registry.get(up)!.statusInfo.status, 'UP');
  } finally {
    await tk.stop();
    await dead.close();
    await alive.close();
  }
});

test('deregister-offline-after: an instance that comes back in time stays (the span restarts with each OFFLINE)', async () => {
  const flaky = await FakeActuator.start();
  let failing = true;
  const checks: number[] = [];
  flaky.on('GET', '/health', {
    handler: (req, res) => {
      checks.push(Date.now());
      if (failing) req.socket.destroy();
      else res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
    },
  });
  const tk = await monitorKernel({ 'deregister-offline-after': '1s', 'status-max-backoff': '100ms' });
  try {
    const id = await register(tk, flaky.registration('flaky'));
    const offline = await eventOf(tk, id, 'STATUS_CHANGED', (e) => e.statusInfo.status === 'OFFLINE');
    failing = false;
    await eventOf(tk, id, 'STATUS_CHANGED', (e) => e.statusInfo.status === 'UP' && e.version > offline.version);
    // Checked on, UP, past the moment the span would have ended had it stayed OFFLINE.
    const due = Date.parse(offline.timestamp) + 1000;
    await eventually(() => checks.filter((at) => at > due).length >= 3, 'checks after the span');
    assert.ok(tk.kernel.registry.get(id)!.registered);
    assert.not.ok(tk.kernel.registry.eventsOf(id).some((e) => e.type === 'DEREGISTERED'));
  } finally {
    await tk.stop();
    await flaky.close();
  }
});

test.run();
