import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import { ENDPOINT_DETECTOR, type DetectionStrategy, type EndpointDetectorService } from '../../../core/kits/services/index.js';
import type { Instance } from '../../../core/domain/index.js';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { call, eventually } from '../../support/http.js';
import { wireForm } from '../../support/wire-form.js';
import { closedPort, eventOf, monitorKernel, register, registerFake, staticStrategy, statusEvent, strategies } from './support.js';

test('healthy instance: REGISTERED → STATUS_CHANGED → ENDPOINTS_DETECTED → INFO_CHANGED, with buildVersion and tags', async () => {
  const info = { build: { version: '1.2.3' }, tags: { region: 'eu' }, app: { name: 'shop' } };
  const fake = await FakeActuator.start({ info });
  const tk = await monitorKernel({}, [strategies('test-detect', [staticStrategy])]);
  try {
    const id = await registerFake(tk, fake, 'info-app', { metadata: { 'tags.team': 'core' } });
    const changed = await eventOf(tk, id, 'INFO_CHANGED');
    assert.equal(changed.info, info);
    assert.equal(tk.kernel.registry.eventsOf(id).map((e) => `${e.type}@${e.version}`), ['REGISTERED@0', 'STATUS_CHANGED@1', 'ENDPOINTS_DETECTED@2', 'INFO_CHANGED@3']);
    const instance = tk.kernel.registry.get(id)!;
    assert.is(instance.buildVersion, '1.2.3');
    assert.equal(instance.tags, { team: 'core', region: 'eu' });

    // A changed info is picked up by the periodic update.
    fake.on('GET', '/info', { json: { build: { version: '1.2.4' } }, contentType: ACTUATOR_V3 });
    await eventOf(tk, id, 'INFO_CHANGED', (e) => e.version > changed.version);
    assert.is(tk.kernel.registry.get(id)!.buildVersion, '1.2.4');

    // An error answer clears the info.
    fake.on('GET', '/info', { status: 500, json: { error: 'boom' } });
    await eventOf(tk, id, 'INFO_CHANGED', (e) => Object.keys(e.info).length === 0);
    assert.is(tk.kernel.registry.get(id)!.buildVersion, null);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('info: a failed call (time-out) clears the info; a non-JSON 2xx gives {}', async () => {
  const fake = await FakeActuator.start({ info: { a: 1 } });
  const tk = await monitorKernel({ timeout: { info: '100ms' } }, [strategies('test-detect', [staticStrategy])]);
  try {
    const id = await registerFake(tk, fake, 'info-fail-app');
    const first = await eventOf(tk, id, 'INFO_CHANGED');
    assert.equal(first.info, { a: 1 });
    fake.on('GET', '/info', { handler: () => undefined });
    const cleared = await eventOf(tk, id, 'INFO_CHANGED', (e) => e.version > first.version);
    assert.equal(cleared.info, {});
    fake.on('GET', '/info', { json: { b: 2 } });
    const back = await eventOf(tk, id, 'INFO_CHANGED', (e) => e.version > cleared.version);
    assert.equal(back.info, { b: 2 });
    fake.on('GET', '/info', { body: '{"c":3}', contentType: 'text/plain' });
    await eventOf(tk, id, 'INFO_CHANGED', (e) => e.version > back.version && Object.keys(e.info).length === 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('without a detection strategy: no detection, no info call', async () => {
  const fake = await FakeActuator.start({ info: { a: 1 } });
  const tk = await monitorKernel();
  try {
    const id = await registerFake(tk, fake, 'no-strategy-app');
    await statusEvent(tk, id, 'UP');
    const seen = fake.requestsTo('/health').length;
    await eventually(() => fake.requestsTo('/health').length >= seen + 3, 'three more health checks');
    assert.is(fake.requestsTo('/info').length, 0);
    assert.equal(tk.kernel.registry.eventsOf(id).map((e) => e.type), ['REGISTERED', 'STATUS_CHANGED']);
    assert.ok(tk.logs().some((line) => line.includes('no detection strategy')));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('the chain: an empty one hands over, a throwing one is skipped and logged, the first non-empty wins', async () => {
  const fake = await FakeActuator.start();
  const asked: string[] = [];
  const named = (name: string, detect: DetectionStrategy['detect']): DetectionStrategy => ({
    name,
    detect: (instance, signal) => {
      asked.push(name);
      return detect(instance, signal);
    },
  });
  const chain = [
    named('empty', async () => []),
    named('broken', async () => { throw new Error('index exploded'); }),
    named('found', async (instance) => [{ id: 'env', url: `${instance.registration!.managementUrl}/env` }]),
    named('later', async () => [{ id: 'never', url: 'http://never' }]),
  ];
  const tk = await monitorKernel({}, [strategies('first-detect', chain.slice(0, 2)), strategies('second-detect', chain.slice(2))]);
  try {
    const id = await registerFake(tk, fake, 'chain-app');
    const detected = await eventOf(tk, id, 'ENDPOINTS_DETECTED');
    assert.equal(wireForm(detected.endpoints), [{ id: 'env', url: fake.endpointUrl('env') }]);
    assert.equal(asked, ['empty', 'broken', 'found']);
    assert.ok(tk.logs().some((line) => line.includes('broken') && line.includes('index exploded')));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('no detection without a managementUrl or while OFFLINE', async () => {
  const fake = await FakeActuator.start();
  let asked = 0;
  const counting: DetectionStrategy = { name: 'counting', detect: async (instance) => { asked += 1; return staticStrategy.detect(instance, new AbortController().signal); } };
  const tk = await monitorKernel({}, [strategies('test-detect', [counting])]);
  try {
    const id = await register(tk, { name: 'no-mgmt', healthUrl: fake.healthUrl });
    await statusEvent(tk, id, 'UP');
    const port = await closedPort();
    const offline = await register(tk, { name: 'offline', healthUrl: `http://127.0.0.1:${port}/actuator/health`, managementUrl: `http://127.0.0.1:${port}/actuator` });
    await statusEvent(tk, offline, 'OFFLINE');
    const seen = fake.requestsTo('/health').length;
    await eventually(() => fake.requestsTo('/health').length >= seen + 3, 'three more health checks');
    assert.is(asked, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('detection runs again periodically, on POST /applications, and on REGISTRATION_UPDATED', async () => {
  const fake = await FakeActuator.start();
  let asked = 0;
  let found = [{ id: 'info', url: '' }];
  const counting: DetectionStrategy = {
    name: 'counting',
    detect: async () => {
      asked += 1;
      return found;
    },
  };
  const tk = await monitorKernel({}, [strategies('test-detect', [counting])]);
  try {
    found = [{ id: 'info', url: fake.endpointUrl('info') }];
    const id = await registerFake(tk, fake, 'refresh-app');
    await eventOf(tk, id, 'ENDPOINTS_DETECTED');
    const askedBefore = asked;
    const healthBefore = fake.requestsTo('/health').length;
    const reply = await call('POST', `${tk.url}/applications`);
    assert.is(reply.status, 200);
    await eventually(() => asked > askedBefore, 'detection after the refresh');
    await eventually(() => fake.requestsTo('/health').length > healthBefore, 'a health check after the refresh');

    // A re-registration with other data re-runs status, detection and info.
    found = [{ id: 'info', url: fake.endpointUrl('info') }, { id: 'env', url: fake.endpointUrl('env') }];
    await registerFake(tk, fake, 'refresh-app', { metadata: { startup: 'again' } });
    const redetected = await eventOf(tk, id, 'ENDPOINTS_DETECTED', (e) => e.endpoints.length === 2);
    assert.ok(redetected.version > 2);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('detection-interval: endpoints that appear later are found without any event', async () => {
  const fake = await FakeActuator.start();
  let found: { id: string; url: string }[] = [];
  let asked = 0;
  const later: DetectionStrategy = { name: 'later', detect: async () => { asked += 1; return found; } };
  const tk = await monitorKernel({ 'detection-interval': '50ms' }, [strategies('test-detect', [later])]);
  try {
    const id = await registerFake(tk, fake, 'late-app');
    await statusEvent(tk, id, 'UP');
    await eventually(() => asked >= 1, 'a first detection');
    found = [{ id: 'info', url: fake.endpointUrl('info') }];
    const detected = await eventOf(tk, id, 'ENDPOINTS_DETECTED');
    assert.equal(wireForm(detected.endpoints), found);
    // Nothing found any more: back to the health-only set (SBA writes that as a change).
    found = [];
    await eventOf(tk, id, 'ENDPOINTS_DETECTED', (e) => e.endpoints.length === 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a strategy that never settles is cut off and keeps the endpoints known so far', async () => {
  const fake = await FakeActuator.start();
  let hang = false;
  const sticky: DetectionStrategy = {
    name: 'sticky',
    detect: (instance, signal) => (hang ? new Promise(() => undefined) : staticStrategy.detect(instance, signal)),
  };
  // default-timeout 50ms: the whole chain is cut after 1 × 50 ms + 1 s.
  const tk = await monitorKernel({ 'default-timeout': '50ms', 'detection-interval': '50ms' }, [strategies('test-detect', [sticky])]);
  try {
    const id = await registerFake(tk, fake, 'sticky-app');
    await eventOf(tk, id, 'ENDPOINTS_DETECTED');
    hang = true;
    await eventually(() => tk.logs().some((line) => line.includes('sticky') && line.includes('timed out')), 'the cut-off warning', 5000);
    assert.is(tk.kernel.registry.get(id)!.endpoints.length, 2);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

/** A plugin that takes the ENDPOINT_DETECTOR service, as the proxy would. */
function grabber(into: { service?: EndpointDetectorService }): VigilPlugin<never> {
  return definePlugin({
    name: 'grabber',
    configKey: null,
    setup() {},
    start(ctx) {
      into.service = ctx.services.use(ENDPOINT_DETECTOR);
    },
  }) as VigilPlugin<never>;
}

test('ENDPOINT_DETECTOR.ensureDetected detects on first demand', async () => {
  const fake = await FakeActuator.start();
  let ready = false;
  const slow: DetectionStrategy = { name: 'slow', detect: async (instance, signal) => (ready ? staticStrategy.detect(instance, signal) : []) };
  const holder: { service?: EndpointDetectorService } = {};
  const tk = await monitorKernel({}, [strategies('test-detect', [slow]), grabber(holder)]);
  try {
    const service = holder.service!;
    assert.ok(service);
    assert.is(await service.ensureDetected('000000000000'), undefined);
    const id = await registerFake(tk, fake, 'demand-app');
    await statusEvent(tk, id, 'UP');
    ready = true;
    const instance: Instance | undefined = await service.ensureDetected(id);
    assert.is(instance!.endpoints.length, 2);
    // Known endpoints: answered without detecting again.
    assert.is(await service.ensureDetected(id), tk.kernel.registry.get(id));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
