import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call, eventually } from '../../support/http.js';
import { eventOf, FAST_MONITOR, monitorKernel, registerFake, staticStrategy, statusEvent, strategies } from './support.js';

test('after DELETE nothing is polled any more and nothing is written after DEREGISTERED', async () => {
  const gone = await FakeActuator.start({ info: { version: 1 } });
  const witness = await FakeActuator.start();
  const tk = await monitorKernel({}, [strategies('test-detect', [staticStrategy])]);
  try {
    const id = await registerFake(tk, gone, 'deleted-app');
    const other = await registerFake(tk, witness, 'witness-app');
    await eventOf(tk, id, 'INFO_CHANGED');
    await statusEvent(tk, other, 'UP');
    assert.is((await call('DELETE', `${tk.url}/instances/${id}`)).status, 204);
    const healthAtDelete = gone.requestsTo('/health').length;
    const infoAtDelete = gone.requestsTo('/info').length;
    // The witness is the clock: it is checked on the same cadence.
    const seen = witness.requestsTo('/health').length;
    await eventually(() => witness.requestsTo('/health').length >= seen + 5, 'five more checks of the witness');
    // A call already on the wire when DELETE came may still arrive; nothing after it.
    assert.ok(gone.requestsTo('/health').length <= healthAtDelete + 1);
    assert.ok(gone.requestsTo('/info').length <= infoAtDelete + 1);
    assert.is(tk.kernel.registry.eventsOf(id).at(-1)!.type, 'DEREGISTERED');
  } finally {
    await tk.stop();
    await gone.close();
    await witness.close();
  }
});

test('a health answer that arrives after DELETE is thrown away', async () => {
  const slow = await FakeActuator.start();
  const witness = await FakeActuator.start();
  const tk = await monitorKernel();
  try {
    slow.on('GET', '/health', { delayMs: 200, json: { status: 'UP' } });
    const id = await registerFake(tk, slow, 'late-app');
    const other = await registerFake(tk, witness, 'witness-app');
    await eventually(() => slow.requestsTo('/health').length > 0, 'the slow check on the wire');
    assert.is((await call('DELETE', `${tk.url}/instances/${id}`)).status, 204);
    await statusEvent(tk, other, 'UP');
    const seen = witness.requestsTo('/health').length;
    await eventually(() => witness.requestsTo('/health').length >= seen + 8, 'eight more checks of the witness');
    assert.equal(tk.kernel.registry.eventsOf(id).map((e) => e.type), ['REGISTERED', 'DEREGISTERED']);
  } finally {
    await tk.stop();
    await slow.close();
    await witness.close();
  }
});

test('a hung instance holds one slot: the healthy ones keep getting checked', async () => {
  const hung = await FakeActuator.start();
  const healthy = await Promise.all([FakeActuator.start(), FakeActuator.start(), FakeActuator.start()]);
  // Two slots in all, and a hung call that would last 10 s.
  const tk = await monitorKernel({ 'max-concurrent-checks': 2, 'default-timeout': '10s' });
  try {
    hung.on('GET', '/health', { handler: () => undefined });
    const hungId = await registerFake(tk, hung, 'hung-app');
    await eventually(() => hung.requestsTo('/health').length > 0, 'the hung call on the wire');
    const ids = await Promise.all(healthy.map((fake, i) => registerFake(tk, fake, `healthy-${i}`)));
    await Promise.all(ids.map((id) => statusEvent(tk, id, 'UP')));
    const counts = healthy.map((fake) => fake.requestsTo('/health').length);
    await eventually(() => healthy.every((fake, i) => fake.requestsTo('/health').length >= counts[i]! + 3), 'three more checks of every healthy instance');
    assert.is(hung.requestsTo('/health').length, 1, 'never a second check of the hung one while the first runs');
    assert.is(tk.kernel.registry.get(hungId)!.statusInfo.status, 'UNKNOWN');
  } finally {
    await tk.stop();
    await hung.close();
    for (const fake of healthy) await fake.close();
  }
});

test('stop aborts calls in flight and ends every schedule', async () => {
  const hung = await FakeActuator.start();
  const tk = await monitorKernel({ 'default-timeout': '30s' });
  try {
    hung.on('GET', '/health', { handler: () => undefined });
    const id = await registerFake(tk, hung, 'stopping-app');
    await eventually(() => hung.requestsTo('/health').length > 0, 'the hung call on the wire');
    await tk.stop();
    assert.is(tk.kernel.phase, 'stopped');
    assert.not.ok(tk.logs().some((line) => /monitor.*(failed|timed out)/.test(line) && line.includes('stop')), tk.logs().join('\n'));
    // No OFFLINE written for an aborted call.
    assert.equal(tk.kernel.registry.eventsOf(id).map((e) => e.type), ['REGISTERED']);
  } finally {
    await tk.stop();
    await hung.close();
  }
});

test('instances registered before start are checked at start; a default-timeout above the interval is warned about', async () => {
  const fake = await FakeActuator.start();
  // A plugin listed before monitor registers an instance in its own start, before monitor starts.
  const early = definePlugin({
    name: 'early-registrar',
    configKey: null,
    setup() {},
    async start(ctx) {
      await ctx.registry.register({ name: 'early', healthUrl: fake.healthUrl, managementUrl: null, serviceUrl: null, source: 'test', metadata: {} });
    },
  }) as VigilPlugin<never>;
  const tk = await startTestKernel({
    plugins: ['rest-api', early, 'monitor'],
    config: { monitor: { ...FAST_MONITOR, 'default-timeout': '1s', 'status-interval': '500ms' } },
  });
  try {
    const id = tk.kernel.registry.list()[0]!.id;
    await statusEvent(tk, id, 'UP');
    assert.ok(tk.logs().some((line) => line.includes('default-timeout is longer')));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('an invalid monitor section stops the start with a message naming the key', async () => {
  await startTestKernel({ plugins: ['monitor'], config: { monitor: { 'status-intervall': '1s' } } }).then(
    () => assert.unreachable('started with a typo'),
    (error: Error) => assert.match(error.message, /monitor.*status-intervall/),
  );
});

test.run();
