import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { validateSection } from '../../../config/validate.js';
import { checkPlugin } from '../../../bin/testing.js';
import { DEFAULT_PROBED_ENDPOINTS, probedEndpointsSchema } from '../../../plugins/detect-probe/config.js';
import plugin from '../../../plugins/detect-probe/index.js';

// CONTRACT §2, verbatim: SBA's `spring.boot.admin.probed-endpoints`.
const CONTRACT_DEFAULT = ['health', 'env', 'metrics', 'httptrace:trace', 'httptrace', 'threaddump:dump', 'threaddump',
  'jolokia', 'info', 'logfile', 'refresh', 'flyway', 'liquibase', 'heapdump', 'loggers', 'auditevents', 'mappings',
  'scheduledtasks', 'configprops', 'caches', 'beans', 'conditions', 'httpexchanges', 'integrationgraph', 'quartz',
  'sessions', 'shutdown', 'startup', 'prometheus', 'sbom'];

const validate = (value: unknown) => validateSection(probedEndpointsSchema, value, 'probed-endpoints');

test('the plugin reads the shared probed-endpoints key and depends on the monitor', () => {
  assert.is(plugin.name, 'detect-probe');
  assert.is(plugin.configKey, 'probed-endpoints');
  assert.equal(plugin.dependencies, ['monitor']);
});

test('absent: the default list of CONTRACT §2, in order', async () => {
  assert.equal(DEFAULT_PROBED_ENDPOINTS, CONTRACT_DEFAULT);
  assert.equal(await validate(undefined), { ok: true, value: CONTRACT_DEFAULT });
});

test('a list, or one comma-separated string, of id and id:path entries', async () => {
  assert.equal(await validate(['health', 'custom:custom-path']), { ok: true, value: ['health', 'custom:custom-path'] });
  assert.equal(await validate('health, threaddump:dump'), { ok: true, value: ['health', 'threaddump:dump'] });
  assert.equal(await validate([]), { ok: true, value: [] });
});

test('malformed entries: one problem each, naming the entry', async () => {
  const result = await validate(['health', ':dump', 'env:', '', 'a b']);
  assert.not.ok(result.ok);
  const problems = result.ok ? [] : result.problems;
  assert.is(problems.length, 4, problems.join('\n'));
  for (const index of [1, 2, 3, 4]) assert.ok(problems.some((p) => p.startsWith(`probed-endpoints.[${index}]: `)), `entry ${index}`);
  assert.ok(problems.some((p) => p.includes('":dump"')));
  for (const bad of [null, { health: true }, 5]) assert.not.ok((await validate(bad)).ok, JSON.stringify(bad));
});

test('checkPlugin: a bad entry is a problem naming probed-endpoints', async () => {
  const problems = await checkPlugin('detect-probe', { 'probed-endpoints': ['health', 'metrics:'] });
  assert.ok(problems.some((p) => p.includes('probed-endpoints') && p.includes('"metrics:"')), problems.join('\n'));
  assert.ok(problems.every((p) => p.includes('detect-probe')), 'each problem names the plugin');
});

test.run();
