import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Logger, PluginContext, VigilPlugin } from '../../core/plugin-api.js';
import type { DetectionStrategy } from '../../core/kits/services/index.js';
import { checkPlugin, startTestKernel } from '../../bin/testing.js';
import { FakeActuator } from '../support/fake-actuator.js';
import { repoRoot } from '../support/paths.js';
import { instanceWith, registerAndDetect } from './detect-index/fixtures.js';

// The example is plain JS among the test fixtures, next to neither the sources nor the compiled
// tests; `plugins:` paths resolve from baseDir, two levels below the root, as in a config file.
const baseDir = join(repoRoot, 'test', 'plugins');
const entry = '../fixtures/vigil-plugin-detect-static';
const packageDir = join(repoRoot, 'test', 'fixtures', 'vigil-plugin-detect-static');

test('the example loads by path and its strategy runs before the index', async () => {
  const fake = await FakeActuator.start({ links: ['health', 'info', 'metrics'] });
  const kernel = await startTestKernel({
    plugins: ['rest-api', 'monitor', entry, 'detect-index'],
    config: { 'detect-static': { endpoints: { orders: ['info', 'beans:custom-beans', 'info:other'] } } },
    baseDir,
  });
  try {
    assert.ok(kernel.logs().some((line) => line.includes('detect-static')), 'the boot report names the example');
    const listed = await registerAndDetect(kernel, fake.registration('orders'));
    assert.equal(listed.endpoints, [
      { id: 'beans', url: fake.endpointUrl('custom-beans') },
      { id: 'health', url: fake.healthUrl },
      { id: 'info', url: fake.endpointUrl('info') },
    ]);
    assert.is(fake.requestsTo('', 'GET').length, 0, 'a listed application is not queried');
    // Another application is not listed: the example hands over to detect-index.
    const other = await FakeActuator.start({ links: ['health', 'env'] });
    try {
      const { endpoints } = await registerAndDetect(kernel, other.registration('billing'));
      assert.equal(endpoints, [{ id: 'env', url: other.endpointUrl('env') }, { id: 'health', url: other.healthUrl }]);
    } finally {
      await other.close();
    }
  } finally {
    await kernel.stop();
    await fake.close();
  }
});

test('checkPlugin names each bad key of the example section', async () => {
  assert.equal(await checkPlugin(entry, {}, baseDir), ['plugin "detect-static" depends on "monitor", which is not in plugins:']);
  const problems = await checkPlugin(entry, { 'detect-static': { endpoints: { orders: ['info', ':x'], billing: 'env' }, typo: 1 } }, baseDir);
  for (const key of ['detect-static.typo', 'detect-static.endpoints.orders[1]', 'detect-static.endpoints.billing']) {
    assert.ok(problems.some((p) => p.includes(`${key}:`)), `${key} in:\n${problems.join('\n')}`);
  }
  assert.ok((await checkPlugin(entry, { 'detect-static': 'orders' }, baseDir)).some((p) => p.includes('detect-static: ')));
});

test('the example strategy on its own: no managementUrl or unknown application gives nothing', async () => {
  const module = (await import(pathToFileURL(join(packageDir, 'index.js')).href)) as { default: VigilPlugin<{ endpoints: Record<string, string[]> }> };
  const plugin = module.default;
  const config = await plugin.configSchema!.validate({ endpoints: { app: ['health'] } });
  const strategies: DetectionStrategy[] = [];
  const log: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };
  const services = { contribute: (_token: unknown, value: DetectionStrategy) => void strategies.push(value) };
  // A partial context: the example's create reads only config, log and services.
  await plugin.create!({ config, log, services } as unknown as PluginContext<typeof config>);
  const detect = (managementUrl: string | null, name = 'app') => strategies[0]!.detect(instanceWith({ name, managementUrl }), new AbortController().signal);
  assert.equal(await detect('http://app/actuator/'), [{ id: 'health', url: 'http://app/actuator/health' }]);
  assert.equal(await detect(null), []);
  assert.equal(await detect('http://app/actuator', 'other'), []);
  assert.equal(await plugin.configSchema!.validate(undefined), { endpoints: {} });
});

test.run();
