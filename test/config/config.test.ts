import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as yup from 'yup';
import { duration, parseDuration } from '../../config/duration.js';
import { interpolate } from '../../config/interpolate.js';
import { normaliseContextPath } from '../../config/kernel-schema.js';
import { loadConfigFile } from '../../config/load.js';
import { joinPath, validateSection } from '../../config/validate.js';

test('durations: numbers are ms, strings carry a unit', () => {
  assert.is(parseDuration(250), 250);
  assert.is(parseDuration('250ms'), 250);
  assert.is(parseDuration('10s'), 10_000);
  assert.is(parseDuration('1m'), 60_000);
  assert.is(parseDuration('1h'), 3_600_000);
  assert.is(parseDuration('1.5s'), 1500);
  assert.is(parseDuration('2d'), 172_800_000);
  assert.is(parseDuration('soon'), undefined);
  assert.is(parseDuration(-1), undefined);
  assert.is(parseDuration(null), undefined);
});

test('durations: ISO-8601 as Spring writes them (java.time.Duration)', () => {
  assert.is(parseDuration('PT10S'), 10_000);
  assert.is(parseDuration('PT1M30S'), 90_000);
  assert.is(parseDuration('pt0.5s'), 500);
  assert.is(parseDuration('PT1,25S'), 1250);
  assert.is(parseDuration('PT2H'), 7_200_000);
  assert.is(parseDuration('P1D'), 86_400_000);
  assert.is(parseDuration('P1DT2H3M4.005S'), 93_784_005);
  assert.is(parseDuration(' PT10S '), 10_000);
  for (const bad of ['P', 'PT', 'P1DT', 'PT-5S', '-PT5S', 'PT5', 'P1Y', 'P1W', 'T10S', 'PT1S2M', 'PT1.5M']) assert.is(parseDuration(bad), undefined, bad);
});

test('duration() schema casts and names the key when invalid', async () => {
  const schema = yup.object({ every: duration().default(1000) }).noUnknown();
  assert.equal(await schema.validate({ every: '2s' }), { every: 2000 });
  assert.equal(await schema.validate({ every: 'PT1M30S' }), { every: 90_000 });
  assert.equal(await schema.validate({}), { every: 1000 });
  const result = await validateSection(schema, { every: 'soon' }, 'monitor');
  assert.equal(result, { ok: false, problems: ['monitor.every: must be a duration such as 250ms, 10s, 1m, 1h or PT10S (got soon)'] });
});

test('interpolation: ${NAME}, ${NAME:-default}, $${ escape, unset names the key and variable', () => {
  const problems: string[] = [];
  const value = interpolate(
    { a: '${HOME_X}', b: ['x-${MISSING:-fallback}'], c: { d: '$${LITERAL}', e: 5 }, f: '${UNSET_ONE}' },
    { HOME_X: '/h' },
    problems,
  );
  assert.equal(value, { a: '/h', b: ['x-fallback'], c: { d: '${LITERAL}', e: 5 }, f: '${UNSET_ONE}' });
  assert.equal(problems, ['f: environment variable UNSET_ONE is not set (use ${UNSET_ONE:-default} for a default)']);
});

test('context path is normalised like SBA', () => {
  assert.is(normaliseContextPath('admin/'), '/admin');
  assert.is(normaliseContextPath('/'), '');
  assert.is(normaliseContextPath(''), '');
  assert.is(normaliseContextPath('/a/b'), '/a/b');
});

test('yup paths become dotted keys', () => {
  assert.is(joinPath('monitor', '["status-interval"]'), 'monitor.status-interval');
  assert.is(joinPath('', 'event-store.max'), 'event-store.max');
  assert.is(joinPath('', undefined), '(root)');
  assert.is(joinPath('cors', undefined), 'cors');
});

test('config files: found in cwd, loaded by path, empty, not a mapping, bad YAML, missing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-config-'));
  assert.equal(await loadConfigFile(undefined, dir), { filepath: null, baseDir: dir, raw: {} });
  writeFileSync(join(dir, 'registry.config.yaml'), 'port: 9000\n');
  const found = await loadConfigFile(undefined, dir);
  assert.equal(found, { filepath: join(dir, 'registry.config.yaml'), baseDir: dir, raw: { port: 9000 } });
  writeFileSync(join(dir, 'empty.yaml'), '');
  assert.equal(await loadConfigFile('empty.yaml', dir), { filepath: join(dir, 'empty.yaml'), baseDir: dir, raw: {} });
  writeFileSync(join(dir, 'list.yaml'), '- a\n- b\n');
  assert.match((await loadConfigFile('list.yaml', dir) as { problem: string }).problem, 'must be a YAML mapping');
  writeFileSync(join(dir, 'bad.yaml'), 'port: [1, 2\n');
  assert.match((await loadConfigFile('bad.yaml', dir) as { problem: string }).problem, 'bad.yaml');
  assert.match((await loadConfigFile('nope.yaml', dir) as { problem: string }).problem, 'file not found');
});

test.run();
