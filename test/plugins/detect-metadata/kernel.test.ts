import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { registerAndDetect } from '../detect-index/fixtures.js';

// The detection-config group of the conformance kit: metadata first, then index, then probes.
const plugins = ['rest-api', 'monitor', 'detect-metadata', 'detect-index', 'detect-probe'];

async function withKernel(body: (kernel: TestKernel, fake: FakeActuator) => Promise<void>): Promise<void> {
  const fake = await FakeActuator.start({ links: ['health', 'info', 'metrics'] });
  fake.on('OPTIONS', '/health', { status: 200 });
  const kernel = await startTestKernel({ plugins });
  try {
    await body(kernel, fake);
  } finally {
    await kernel.stop();
    await fake.close();
  }
}

test('through the kernel: metadata "endpoints" wins; neither index nor probes are queried', () =>
  withKernel(async (kernel, fake) => {
    const { endpoints } = await registerAndDetect(kernel, fake.registration('meta-app', { metadata: { endpoints: 'health,info, beans' } }));
    assert.equal(endpoints, [
      { id: 'beans', url: fake.endpointUrl('beans') },
      { id: 'health', url: fake.healthUrl },
      { id: 'info', url: fake.endpointUrl('info') },
    ]);
    assert.is(fake.requestsTo('', 'GET').length, 0, 'index queries');
    assert.is(fake.requests.filter((r) => r.method === 'OPTIONS').length, 0, 'probes');
  }));

test('through the kernel: without the key, the index takes over', () =>
  withKernel(async (kernel, fake) => {
    const { endpoints } = await registerAndDetect(kernel, fake.registration('meta-none'));
    assert.equal(endpoints, ['health', 'info', 'metrics'].map((id) => ({ id, url: fake.endpointUrl(id) })));
  }));

test.run();
