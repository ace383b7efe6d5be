import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { VigilError } from '../../core/errors.js';
import { isPathEntry, resolvePlugin } from '../../core/plugin-resolve.js';
import { repoRoot } from '../support/paths.js';

const fixtures = join(repoRoot, 'test', 'fixtures');
const builtins = { 'rest-api': { section: null, load: async () => ({ name: 'rest-api', setup() {} }) } };

async function failure(entry: string, baseDir = join(fixtures, 'plugins')): Promise<VigilError> {
  try {
    await resolvePlugin(entry, builtins, baseDir);
  } catch (error) {
    assert.instance(error, VigilError);
    return error as VigilError;
  }
  throw new Error(`${entry} resolved`);
}

test('entries: built-in name, path, npm package', async () => {
  assert.is((await resolvePlugin('rest-api', builtins, fixtures)).source, 'builtin');
  const esm = await resolvePlugin('./esm-plugin.js', builtins, join(fixtures, 'plugins'));
  assert.is(esm.plugin.name, 'esm-fixture');
  assert.is(esm.source, 'path');
  assert.is((await resolvePlugin('./plugins/cjs-plugin.cjs', builtins, fixtures)).plugin.name, 'cjs-fixture');
  assert.is((await resolvePlugin('./folder-plugin', builtins, join(fixtures, 'plugins'))).plugin.name, 'folder-fixture');
  assert.is((await resolvePlugin(join(fixtures, 'plugins', 'esm-plugin.js'), builtins, '/')).plugin.name, 'esm-fixture');
  const pkg = await resolvePlugin('vigil-plugin-fixture', builtins, join(fixtures, 'packages'));
  assert.is(pkg.source, 'package');
  assert.is(pkg.plugin.version, '1.2.3');
});

test('not found is told apart from found-but-broken', async () => {
  const missingFile = await failure('./nope.js');
  assert.is(missingFile.code, 'ERR_PLUGIN_NOT_FOUND');
  const missingPackage = await failure('vigil-plugin-not-installed', join(fixtures, 'packages'));
  assert.is(missingPackage.code, 'ERR_PLUGIN_NOT_FOUND');
  assert.match(missingPackage.message, 'npm install vigil-plugin-not-installed');
  assert.is((await failure('Not A Package!')).code, 'ERR_PLUGIN_NOT_FOUND');
  const brokenFile = await failure('./missing-dependency.js');
  assert.is(brokenFile.code, 'ERR_PLUGIN_BROKEN');
  assert.match(brokenFile.message, 'one of its own dependencies is missing');
  const brokenPackage = await failure('vigil-plugin-broken', join(fixtures, 'packages'));
  assert.is(brokenPackage.code, 'ERR_PLUGIN_BROKEN');
  const throwing = await failure('./throws-on-load.js');
  assert.match(throwing.message, 'failed to load: fixture exploded while loading');
});

test('path entries', () => {
  assert.ok(isPathEntry('./x.js'));
  assert.ok(isPathEntry('../x'));
  assert.ok(isPathEntry('/abs/x.js'));
  assert.not.ok(isPathEntry('vigil-plugin-eureka'));
  assert.not.ok(isPathEntry('@scope/pkg'));
});

test.run();
