import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as yup from 'yup';
import { ProblemsError } from '../../core/errors.js';
import type { VigilPlugin } from '../../core/plugin-api.js';
import { prepare } from '../../core/prepare.js';
import type { BuiltinPlugins } from '../../core/plugin-resolve.js';
import { builtinPlugins } from '../../bin/builtin-plugins.js';

const noop = (name: string, extra: Partial<VigilPlugin<unknown>> = {}): VigilPlugin<unknown> => ({ name, setup() {}, ...extra });

const fakes: BuiltinPlugins = {
  alpha: { section: null, load: async () => noop('alpha') },
  beta: { section: 'beta', load: async () => noop('beta', { dependencies: ['alpha'], configSchema: yup.object({ size: yup.number().integer().default(1) }).exact('${path} has unknown key(s): ${properties}') }) },
  gamma: { section: 'gamma', load: async () => noop('gamma', { configSchema: yup.object({ on: yup.boolean().default(false) }).noUnknown() }) },
};

async function problemsOf(config: Record<string, unknown>, builtins: BuiltinPlugins = fakes, env: NodeJS.ProcessEnv = {}): Promise<readonly string[]> {
  try {
    await prepare({ config, cwd: process.cwd(), env, builtins });
  } catch (error) {
    if (error instanceof ProblemsError) return error.problems;
    throw error;
  }
  throw new Error('expected problems');
}

test('valid config: defaults, plugin order by dependencies with list order as tie-break, sections validated', async () => {
  const prepared = await prepare({ config: { plugins: ['beta', 'gamma', 'alpha'], beta: { size: '3' } }, cwd: process.cwd(), env: {}, builtins: fakes });
  assert.equal(prepared.plugins.map((p) => p.plugin.name), ['gamma', 'alpha', 'beta']);
  assert.equal(prepared.plugins.map((p) => p.rank), [1, 2, 0]);
  assert.equal(prepared.plugins.find((p) => p.plugin.name === 'beta')!.config, { size: 3 });
  assert.is(prepared.settings.port, 8080);
  assert.is(prepared.settings.host, '0.0.0.0');
  assert.is(prepared.settings['context-path'], '');
  assert.is(prepared.settings['event-store']['max-events-per-instance'], 100);
  assert.is(prepared.settings['event-store']['retention-after-deregistration'], 3_600_000);
});

test('overrides (CLI flags) beat the file', async () => {
  const prepared = await prepare({ config: { port: 1, plugins: ['alpha'] }, overrides: { port: 2, 'context-path': 'admin' }, cwd: process.cwd(), env: {}, builtins: fakes });
  assert.is(prepared.settings.port, 2);
  assert.is(prepared.settings['context-path'], '/admin');
});

test('every problem is reported, one per line, naming key, plugin or variable', async () => {
  const problems = await problemsOf({
    plugins: ['alpha', 'no-such-plugin-kit', 'alpha'],
    port: 'eighty',
    'kit-unknown-key': 1,
    gamma: { on: 'maybe' },
    'event-store': { 'max-events-per-instance': 3, typo: 1 },
    secret: '${VIGIL_KIT_UNSET}',
  });
  const text = problems.join('\n');
  for (const word of ['no-such-plugin-kit', 'port', 'kit-unknown-key', 'gamma', 'on', 'max-events-per-instance', 'typo', 'VIGIL_KIT_UNSET', 'listed twice']) {
    assert.ok(text.includes(word), `problems should name ${word}:\n${text}`);
  }
});

test('dependencies: missing and circular', async () => {
  assert.match((await problemsOf({ plugins: ['beta'] })).join('\n'), 'plugin "beta" depends on "alpha", which is not in plugins:');
  const cyclic: BuiltinPlugins = {
    a: { section: null, load: async () => noop('a', { dependencies: ['b'] }) },
    b: { section: null, load: async () => noop('b', { dependencies: ['a'] }) },
  };
  assert.match((await problemsOf({ plugins: ['a', 'b'] }, cyclic)).join('\n'), 'circular dependencies: a, b');
});

test('plugin objects are checked against the contract', async () => {
  const broken: BuiltinPlugins = {
    bad: { section: null, load: async () => ({ name: 'Bad Name', setup: 'no', start: 1, dependencies: 'x', configKey: '', configSchema: {} }) as never },
    twin1: { section: null, load: async () => noop('twin') },
    twin2: { section: null, load: async () => noop('twin') },
    nothing: { section: null, load: async () => undefined as never },
  };
  const text = (await problemsOf({ plugins: ['bad', 'twin1', 'twin2', 'nothing'] }, broken)).join('\n');
  for (const word of ['"name" must be', '"setup" must be a function', '"start" must be a function', '"dependencies" must be', '"configKey"', '"configSchema"', 'both call themselves "twin"', 'must export a plugin object']) {
    assert.ok(text.includes(word), `missing ${word} in:\n${text}`);
  }
});

test('a section of a known but unloaded plugin is accepted and still validated', async () => {
  const prepared = await prepare({ config: { plugins: ['alpha'], gamma: { on: true } }, cwd: process.cwd(), env: {}, builtins: fakes });
  assert.equal(prepared.plugins.map((p) => p.plugin.name), ['alpha']);
  assert.match((await problemsOf({ plugins: ['alpha'], gamma: { on: 'x' } })).join('\n'), 'gamma');
});

test('the built-in map declares each plugin\'s real config key', async () => {
  for (const [name, builtin] of Object.entries(builtinPlugins)) {
    const plugin = await builtin.load();
    assert.is(plugin.name, name);
    assert.is(plugin.configKey === undefined ? plugin.name : plugin.configKey, builtin.section, `section of ${name}`);
  }
});

test('without a plugins key the default list loads; a config file is read through --config', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-prepare-'));
  writeFileSync(join(dir, 'vigil.yaml'), 'port: ${PORT:-9001}\n');
  const prepared = await prepare({ configFile: 'vigil.yaml', cwd: dir, env: {}, builtins: builtinPlugins });
  assert.is(prepared.filepath, join(dir, 'vigil.yaml'));
  assert.is(prepared.settings.port, 9001);
  assert.equal(prepared.plugins.map((p) => p.plugin.name).filter((n) => !n.startsWith('detect-')).slice(0, 3), ['rest-api', 'sse', 'proxy']);
  try {
    await prepare({ configFile: 'missing.yaml', cwd: dir, env: {}, builtins: builtinPlugins });
    assert.unreachable();
  } catch (error) {
    assert.match((error as ProblemsError).problems[0]!, 'file not found');
  }
});

test.run();
