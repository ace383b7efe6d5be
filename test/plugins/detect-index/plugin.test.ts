import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { type Logger, type PluginContext, type ServiceToken, type Services } from '../../../core/plugin-api.js';
import { DETECTION_STRATEGY, INSTANCE_HTTP, instanceHttpOf, type DetectionStrategy } from '../../../core/kits/services/index.js';
import { checkPlugin } from '../../../bin/testing.js';
import plugin from '../../../plugins/detect-index/index.js';
import { instanceWith } from './fixtures.js';

/** A Services stand-in holding contributions and nothing provided. */
function bareServices(): { services: Services; contributed: unknown[] } {
  const contributed: unknown[] = [];
  const services: Services = {
    provide: () => undefined,
    use: () => undefined,
    contribute: <T>(_token: ServiceToken<T>, value: T) => void contributed.push(value),
    collect: () => [],
  };
  return { services, contributed };
}

test('the plugin object: name, monitor dependency, no config section', async () => {
  assert.is(plugin.name, 'detect-index');
  assert.equal(plugin.dependencies, ['monitor']);
  assert.is(plugin.configKey, null);
  const problems = await checkPlugin('detect-index');
  assert.equal(problems, ['plugin "detect-index" depends on "monitor", which is not in plugins:']);
});

test('setup contributes one strategy; without the monitor it fails clearly when run', async () => {
  const { services, contributed } = bareServices();
  const tokens: string[] = [];
  const spy: Services = { ...services, contribute: (token, value) => { tokens.push(token.key); services.contribute(token, value); } };
  const log: Logger = { debug() {}, info() {}, warn() {}, error() {}, child: () => log };
  // A partial context: create reads only services and log.
  await plugin.create!({ services: spy, log } as unknown as PluginContext<unknown>);
  assert.equal(tokens, [DETECTION_STRATEGY.key]);
  const strategy = contributed[0] as DetectionStrategy;
  assert.is(strategy.name, 'detect-index');
  await strategy.detect(instanceWith({ managementUrl: 'http://127.0.0.1:1/actuator' }), new AbortController().signal).then(
    () => assert.unreachable('resolved'),
    (error: unknown) => assert.match(String(error), /instance HTTP client.*"monitor" plugin/),
  );
});

test('instanceHttpOf hands out the provided client', () => {
  const client = { request: async () => ({ status: 200, headers: {}, contentType: '', body: Buffer.alloc(0) }) };
  const services = { ...bareServices().services, use: <T>(token: ServiceToken<T>) => (token.key === INSTANCE_HTTP.key ? client : undefined) as T | undefined };
  assert.is(instanceHttpOf(services)(), client);
});

test.run();
