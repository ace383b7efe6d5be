import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { joinUrl } from '../../../core/domain/index.js';
import { endpointsFromMetadata } from '../../../plugins/detect-metadata/endpoints-key.js';
import plugin from '../../../plugins/detect-metadata/index.js';
import { metadataStrategy } from '../../../plugins/detect-metadata/metadata-strategy.js';
import { instanceWith } from '../detect-index/fixtures.js';

const detect = (managementUrl: string | null, metadata: Record<string, string>, signal = new AbortController().signal) =>
  metadataStrategy().detect(instanceWith({ managementUrl, metadata }), signal);

test('the plugin object: name, monitor dependency, no config section', () => {
  assert.is(plugin.name, 'detect-metadata');
  assert.equal(plugin.dependencies, ['monitor']);
  assert.is(plugin.configKey, null);
  assert.is(metadataStrategy().name, 'detect-metadata');
});

test('ids are trimmed, empty entries skipped, id:path allowed, URL under managementUrl', async () => {
  assert.equal(await detect('http://app/actuator', { endpoints: ' health,info, , beans:custom-beans ,env : environment,' }), [
    { id: 'health', url: 'http://app/actuator/health' },
    { id: 'info', url: 'http://app/actuator/info' },
    { id: 'beans', url: 'http://app/actuator/custom-beans' },
    { id: 'env', url: 'http://app/actuator/environment' },
  ]);
});

test('a repeated id keeps its first entry; an entry without id is skipped; an empty path means the id', () => {
  assert.equal(endpointsFromMetadata('info:a,info:b,:x,logfile:', 'http://app/m/'), [
    { id: 'info', url: 'http://app/m/a' },
    { id: 'logfile', url: 'http://app/m/logfile' },
  ]);
  assert.is(joinUrl('http://app/m//', '/x'), 'http://app/m/x');
});

test('no key, an empty value or no managementUrl: nothing', async () => {
  assert.equal(await detect('http://app/actuator', {}), []);
  assert.equal(await detect('http://app/actuator', { endpoints: ' , ' }), []);
  assert.equal(await detect('http://app/actuator', { 'endpoints.other': 'health' }), []);
  assert.equal(await detect(null, { endpoints: 'health' }), []);
});

test('an aborted signal rejects', async () => {
  const controller = new AbortController();
  controller.abort(new Error('stopping'));
  await detect('http://app/actuator', { endpoints: 'health' }, controller.signal).then(
    () => assert.unreachable('resolved'),
    (error: unknown) => assert.match(String(error), /stopping/),
  );
});

test.run();
