import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../core/testing.js';
import { INDEX_ACCEPT } from '../../../plugins/detect-index/index-strategy.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { registerAndDetect, sortById } from './fixtures.js';

test('through the kernel: the monitor records the index links, health at the healthUrl', async () => {
  const fake = await FakeActuator.start({ links: ['health', 'info', 'env', 'metrics'] });
  const kernel = await startTestKernel({ plugins: ['rest-api', 'monitor', 'detect-index'] });
  try {
    const { endpoints } = await registerAndDetect(kernel, fake.registration('index-app'));
    assert.equal(endpoints, sortById(['health', 'info', 'env', 'metrics'].map((id) => ({ id, url: fake.endpointUrl(id) }))));
    assert.is(fake.requestsTo('', 'GET')[0]?.headers.accept, INDEX_ACCEPT);
  } finally {
    await kernel.stop();
    await fake.close();
  }
});

test('through the kernel: an index 404 alone leaves health only, and nothing is probed', async () => {
  const fake = await FakeActuator.start({ links: null });
  const kernel = await startTestKernel({ plugins: ['rest-api', 'monitor', 'detect-index'] });
  try {
    // An unchanged health-only set writes no event, so wait on the index query and the monitor's log instead.
    const created = await fetch(`${kernel.url}/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fake.registration('index-404')) });
    assert.is(created.status, 201);
    const { id } = (await created.json()) as { id: string };
    await kernel.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED', 'STATUS_CHANGED');
    const instance = (await (await fetch(`${kernel.url}/instances/${id}`)).json()) as { endpoints: unknown };
    assert.equal(instance.endpoints, [{ id: 'health', url: fake.healthUrl }]);
    assert.is(fake.requests.filter((r) => r.method === 'OPTIONS').length, 0);
  } finally {
    await kernel.stop();
    await fake.close();
  }
});

test.run();
