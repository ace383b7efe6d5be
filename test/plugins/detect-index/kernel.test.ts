import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { ACTUATOR_ACCEPT as INDEX_ACCEPT } from '../../../core/kits/runtime/index.js';
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

test.run();
