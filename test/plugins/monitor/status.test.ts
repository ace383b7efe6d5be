import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { changeStatusCommand } from '../../../core/plugin-api.js';
import { statusInfo } from '../../../core/domain/index.js';
import { eventually } from '../../support/http.js';
import { statusCallCutOff } from '../../../plugins/monitor/status-updater.js';
import { closedPort, monitorKernel, register, registerFake, statusEvent } from './support.js';

test('UP JSON: STATUS_CHANGED UP with components as details, statusTimestamp moves', async () => {
  const components = { db: { status: 'UP', details: { database: 'H2' } } };
  const fake = await FakeActuator.start({ health: { status: 'UP', components } });
  const tk = await monitorKernel();
  try {
    const id = await registerFake(tk, fake, 'up-app');
    const event = await statusEvent(tk, id, 'UP');
    assert.is(event.version, 1);
    assert.equal(event.statusInfo.details, components);
    const instance = tk.kernel.registry.get(id)!;
    assert.is(instance.statusTimestamp, event.timestamp);
    assert.is(fake.requestsTo('/health', 'GET')[0]!.headers.accept, 'application/vnd.spring-boot.actuator.v3+json, application/vnd.spring-boot.actuator.v2+json, application/json');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a status in the body wins on 503; then text, empty and status-less JSON 503s are DOWN with code and reason', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'status-change-detection': 'full' });
  try {
    fake.setHealth(503, { status: 'out_of_service', components: { disk: { status: 'DOWN' } } });
    const id = await registerFake(tk, fake, 'down-app');
    const oos = await statusEvent(tk, id, 'OUT_OF_SERVICE');
    assert.equal(oos.statusInfo.details, { disk: { status: 'DOWN' } });

    fake.on('GET', '/health', { status: 503, json: { foo: 'bar' }, contentType: 'application/json' });
    const merged = await statusEvent(tk, id, 'DOWN', oos.version);
    assert.equal(merged.statusInfo.details, { status: 503, error: 'Service Unavailable', foo: 'bar' });

    // Full detection: a details-only change is an event, the status timestamp stays.
    fake.on('GET', '/health', { status: 503, body: 'service unavailable', contentType: 'text/plain' });
    const text = await statusEvent(tk, id, 'DOWN', merged.version);
    assert.equal(text.statusInfo.details, { status: 503, error: 'Service Unavailable' });
    assert.is(tk.kernel.registry.get(id)!.statusTimestamp, merged.timestamp);

    fake.on('GET', '/health', { status: 500 });
    const empty = await statusEvent(tk, id, 'DOWN', text.version);
    assert.equal(empty.statusInfo.details, { status: 500, error: 'Internal Server Error' });
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('control characters in a reported status are removed on arrival: "DOWN\\r\\nBCC: ..." is one plain status', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel();
  try {
    fake.setHealth(503, { status: 'down\r\nBCC: victim@example.com\u0000\u001b[2J\u2028' });
    const id = await registerFake(tk, fake, 'crlf-app');
    const event = await statusEvent(tk, id, 'DOWNBCC: VICTIM@EXAMPLE.COM[2J');
    assert.is(tk.kernel.registry.get(id)!.statusInfo.status, 'DOWNBCC: VICTIM@EXAMPLE.COM[2J');
    assert.is(event.statusInfo.status, 'DOWNBCC: VICTIM@EXAMPLE.COM[2J');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('plain 200 without a body is UP', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel();
  try {
    fake.on('GET', '/health', { status: 200 });
    const id = await registerFake(tk, fake, 'plain-app');
    assert.equal((await statusEvent(tk, id, 'UP')).statusInfo.details, {});
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('connection refused: OFFLINE with message and exception', async () => {
  const tk = await monitorKernel();
  try {
    const port = await closedPort();
    const id = await register(tk, { name: 'gone-app', healthUrl: `http://127.0.0.1:${port}/actuator/health` });
    const event = await statusEvent(tk, id, 'OFFLINE');
    assert.is(event.statusInfo.details.exception, 'ECONNREFUSED');
    assert.type(event.statusInfo.details.message, 'string');
  } finally {
    await tk.stop();
  }
});

test('no answer within monitor.timeout.health: OFFLINE (ETIMEDOUT)', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'default-timeout': '5s', timeout: { health: '150ms' } });
  try {
    fake.on('GET', '/health', { handler: () => undefined });
    const id = await registerFake(tk, fake, 'slow-app');
    assert.is((await statusEvent(tk, id, 'OFFLINE')).statusInfo.details.exception, 'ETIMEDOUT');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a slow health endpoint is OFFLINE after |status-interval - 1 s|, retries included', async () => {
  const fake = await FakeActuator.start();
  // Each attempt may take 400 ms and there are four: without the cut-off the call would last 1.6 s
  // and end with the per-request message. status-interval 300 ms: the whole call is cut after 700 ms.
  const tk = await monitorKernel({ 'status-interval': '300ms', 'default-timeout': '400ms', retries: { health: 3 } });
  try {
    fake.on('GET', '/health', { delayMs: 10_000, json: { status: 'UP' }, contentType: ACTUATOR_V3 });
    const id = await registerFake(tk, fake, 'slow-health-app');
    const offline = await statusEvent(tk, id, 'OFFLINE');
    assert.equal(offline.statusInfo.details, { message: 'no health answer within 700 ms (a status check is cut off after |status-interval - 1 s|)', exception: 'ETIMEDOUT' });
    assert.equal(tk.kernel.registry.get(id)!.statusInfo, offline.statusInfo);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('status-interval 1 s: no extra cut, the per-request time-out decides', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'status-interval': '1s', 'default-timeout': '5s', timeout: { health: '1200ms' } });
  try {
    fake.on('GET', '/health', { delayMs: 10_000, json: { status: 'UP' }, contentType: ACTUATOR_V3 });
    const id = await registerFake(tk, fake, 'uncut-app');
    const offline = await statusEvent(tk, id, 'OFFLINE', -1, 5000);
    assert.equal(offline.statusInfo.details, { message: 'no complete answer within 1200 ms', exception: 'ETIMEDOUT' });
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('statusCallCutOff: |status-interval - 1 s|, 0 meaning none', () => {
  assert.is(statusCallCutOff(10_000), 9000);
  assert.is(statusCallCutOff(50), 950);
  assert.is(statusCallCutOff(1000), 0);
});

test('a health body dripped a byte at a time: OFFLINE', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'default-timeout': '200ms' });
  const timers = new Set<NodeJS.Timeout>();
  try {
    fake.on('GET', '/health', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': ACTUATOR_V3 });
        res.write('{"status":');
        const timer = setInterval(() => res.write(' '), 30);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
      },
    });
    const id = await registerFake(tk, fake, 'drip-app');
    assert.is((await statusEvent(tk, id, 'OFFLINE')).statusInfo.details.exception, 'ETIMEDOUT');
  } finally {
    for (const timer of timers) clearInterval(timer);
    await tk.stop();
    await fake.close();
  }
});

test('retries: the first attempt times out, the retry answers UP', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'default-timeout': '150ms', retries: { health: 1 } });
  try {
    let calls = 0;
    fake.on('GET', '/health', {
      handler: (_req, res) => {
        calls += 1;
        if (calls === 1) return;
        res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end('{"status":"UP"}');
      },
    });
    const id = await registerFake(tk, fake, 'retry-app');
    const event = await statusEvent(tk, id, 'UP');
    assert.is(event.version, 1, 'never OFFLINE in between');
    assert.ok(calls >= 2);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('damping: failures-before-down 2 and successes-before-up 2', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'failures-before-down': 2, 'successes-before-up': 2 });
  try {
    let mode: 'up' | 'down' = 'up';
    let answers = 0;
    fake.on('GET', '/health', {
      handler: (_req, res) => {
        answers += 1;
        res.writeHead(mode === 'up' ? 200 : 503, { 'content-type': ACTUATOR_V3 }).end(JSON.stringify({ status: mode.toUpperCase() }));
      },
    });
    const id = await registerFake(tk, fake, 'flappy-app');
    const up = await statusEvent(tk, id, 'UP');
    assert.is(up.version, 1, 'the first result after UNKNOWN records at once');

    // Count the answers of the new kind at the moment the event is recorded (the bus is synchronous).
    const seenAt: Record<string, number> = {};
    const off = tk.kernel.bus.on('instance.changed', ({ event }) => {
      if (event.instance === id && event.type === 'STATUS_CHANGED') seenAt[event.statusInfo.status] = answers;
    });
    const before = answers;
    mode = 'down';
    const down = await statusEvent(tk, id, 'DOWN', up.version);
    assert.is(seenAt.DOWN! - before, 2, 'DOWN recorded on the second DOWN answer, not the first');
    const beforeUp = answers;
    mode = 'up';
    await statusEvent(tk, id, 'UP', down.version);
    assert.is(seenAt.UP! - beforeUp, 2, 'UP recorded on the second UP answer');
    off();
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('status-change-detection "status": a details-only change writes nothing', async () => {
  const fake = await FakeActuator.start({ health: { status: 'UP', components: { n: 1 } } });
  const tk = await monitorKernel();
  try {
    const id = await registerFake(tk, fake, 'details-app');
    await statusEvent(tk, id, 'UP');
    fake.setHealth(200, { status: 'UP', components: { n: 2 } });
    const seen = fake.requestsTo('/health').length;
    await eventually(() => fake.requestsTo('/health').length >= seen + 3, 'three more health checks');
    const statusEvents = tk.kernel.registry.eventsOf(id).filter((e) => e.type === 'STATUS_CHANGED');
    assert.is(statusEvents.length, 1);
    assert.equal(tk.kernel.registry.get(id)!.statusInfo.details, { n: 1 }, 'stored details stay as they were (SBA)');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('credentials from the metadata reach the instance as Basic auth', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel();
  try {
    const id = await registerFake(tk, fake, 'secure-app', { metadata: { 'user.name': 'actuator', 'user.password': 's3cret' } });
    await statusEvent(tk, id, 'UP');
    const expected = `Basic ${Buffer.from('actuator:s3cret').toString('base64')}`;
    assert.is(fake.requestsTo('/health')[0]!.headers.authorization, expected);
    assert.not.ok(tk.logs().some((line) => line.includes('s3cret')), 'credentials are never logged');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('an OFFLINE instance keeps being checked (with back-off) and recovers', async () => {
  const fake = await FakeActuator.start();
  const tk = await monitorKernel({ 'status-max-backoff': '100ms' });
  try {
    fake.on('GET', '/health', { handler: (_req, res) => res.destroy() });
    const id = await registerFake(tk, fake, 'recovering-app');
    const offline = await statusEvent(tk, id, 'OFFLINE');
    fake.setHealth(200, { status: 'UP' });
    await statusEvent(tk, id, 'UP', offline.version);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a check whose call went out before another writer recorded a status records nothing: an older observation never overwrites a newer one', async () => {
  // In a cluster, two nodes check an instance at once for up to a heartbeat while ownership moves:
  // the old owner's UP, answered before the instance went DOWN, must not land on top of the new
  // owner's DOWN (a false recovery, notified as DOWN → UP).
  const fake = await FakeActuator.start();
  const tk = await monitorKernel();
  const held: ServerResponse[] = [];
  try {
    const id = await registerFake(tk, fake, 'overtaken-app');
    const up = await statusEvent(tk, id, 'UP');
    fake.on('GET', '/health', { handler: (_req, res) => held.push(res) });
    await eventually(() => held.length === 1, 'a check waiting for its answer');
    // Another node's check of the same instance records DOWN meanwhile.
    const down = await tk.kernel.registry.apply(id, changeStatusCommand(statusInfo('DOWN', {})));
    held[0]!.writeHead(200, { 'content-type': ACTUATOR_V3 }).end('{"status":"UP"}');
    // Checks of one instance never overlap: the next call means the answered one is finished.
    await eventually(() => held.length === 2, 'the next check');
    const statuses = tk.kernel.registry.eventsOf(id).filter((e) => e.type === 'STATUS_CHANGED').map((e) => [e.version, e.statusInfo.status]);
    assert.equal(statuses, [[up.version, 'UP'], [down!.version, 'DOWN']]);
  } finally {
    for (const res of held) res.destroy();
    await tk.stop();
    await fake.close();
  }
});

test.run();
