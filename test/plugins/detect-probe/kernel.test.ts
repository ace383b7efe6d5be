import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { DEFAULT_PROBED_ENDPOINTS } from '../../../plugins/detect-probe/config.js';
import { parseProbeEntry } from '../../../plugins/detect-probe/probe-entry.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { registerAndDetect } from '../detect-index/fixtures.js';

test('through the kernel: configured probed-endpoints, id:path, only those paths probed', async () => {
  const fake = await FakeActuator.start({ links: null });
  for (const path of ['/health', '/custom-path', '/info', '/env']) fake.on('OPTIONS', path, { status: 200 });
  const kernel = await startTestKernel({
    plugins: ['rest-api', 'monitor', 'detect-probe'],
    config: { 'probed-endpoints': ['health', 'custom:custom-path', 'info', 'beans'] },
  });
  try {
    const { endpoints } = await registerAndDetect(kernel, fake.registration('probe-app'));
    assert.equal(endpoints, [
      { id: 'custom', url: fake.endpointUrl('custom-path') },
      { id: 'health', url: fake.healthUrl },
      { id: 'info', url: fake.endpointUrl('info') },
    ]);
    const probed = new Set(fake.requests.filter((r) => r.method === 'OPTIONS').map((r) => r.path));
    assert.equal([...probed].sort(), ['beans', 'custom-path', 'health', 'info'].map((p) => `/actuator/${p}`));
  } finally {
    await kernel.stop();
    await fake.close();
  }
});

test('through the kernel: index first, and on a 404 the default list is probed', async () => {
  const fake = await FakeActuator.start({ links: null });
  for (const path of ['/health', '/info', '/dump']) fake.on('OPTIONS', path, { status: 200 });
  const kernel = await startTestKernel({ plugins: ['rest-api', 'monitor', 'detect-index', 'detect-probe'] });
  try {
    const { endpoints } = await registerAndDetect(kernel, fake.registration('chain-app'));
    assert.equal(endpoints, [
      { id: 'health', url: fake.healthUrl },
      { id: 'info', url: fake.endpointUrl('info') },
      { id: 'threaddump', url: fake.endpointUrl('dump') },
    ]);
    const firstIndex = fake.requests.findIndex((r) => r.method === 'GET' && r.path === fake.basePath);
    const firstProbe = fake.requests.findIndex((r) => r.method === 'OPTIONS');
    assert.ok(firstIndex >= 0 && firstIndex < firstProbe, 'the index is queried before any probe');
    const probed = new Set(fake.requests.filter((r) => r.method === 'OPTIONS').map((r) => r.path));
    const expected = DEFAULT_PROBED_ENDPOINTS.map((entry) => `${fake.basePath}/${parseProbeEntry(entry)!.path}`);
    assert.equal([...probed].sort(), [...new Set(expected)].sort(), 'every path of the default list');
  } finally {
    await kernel.stop();
    await fake.close();
  }
});

test.run();
