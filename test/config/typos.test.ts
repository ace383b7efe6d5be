import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { nearestName } from '../../config/suggest.js';
import { ProblemsError } from '../../core/errors.js';
import { prepare, type Prepared } from '../../core/prepare.js';
import { builtinPlugins } from '../../bin/builtin-plugins.js';
import { repoRoot } from '../support/paths.js';

/**
 * Issue 29, item 4: a config that catches typos. Unknown keys, plugin names and enum values are
 * answered with the nearest known name; a typo of a built-in plugin is never answered with
 * `npm install`; a unit-less duration that is surely not meant in milliseconds is a warning; an
 * unset ${VAR} is one problem, not one more for the value it left behind.
 */
async function problemsOf(config: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): Promise<string[]> {
  try {
    await prepare({ config, cwd: repoRoot, env, builtins: builtinPlugins });
  } catch (error) {
    if (error instanceof ProblemsError) return [...error.problems];
    throw error;
  }
  throw new Error(`expected problems for ${JSON.stringify(config)}`);
}

const prepared = (config: Record<string, unknown>): Promise<Prepared> => prepare({ config, cwd: repoRoot, env: {}, builtins: builtinPlugins });

test('the nearest name: edit distance up to 2 (a swap counts 1), or the same name with -, _ and case differences', () => {
  const known = ['monitor', 'status-interval', 'notify-slack', 'notify-teams', 'sse', 'ui', 'cors'];
  assert.is(nearestName('montor', known), 'monitor');
  assert.is(nearestName('status-intervall', known), 'status-interval');
  assert.is(nearestName('notify-slak', known), 'notify-slack');
  assert.is(nearestName('Notify_Slack', known), 'notify-slack');
  assert.is(nearestName('STATUS_INTERVAL', known), 'status-interval');
  assert.is(nearestName('corz', known), 'cors');
  assert.is(nearestName('cros', known), 'cors');
  assert.is(nearestName('notify-email', known), undefined);
  assert.is(nearestName('x', known), undefined, 'not a whole replacement of a short name');
  assert.is(nearestName('monitor', known), undefined, 'a known name is no typo');
});

test('an unknown top-level key is answered with the nearest known key or section', async () => {
  assert.equal(await problemsOf({ montor: { 'status-interval': '10s' } }),
    ['montor: unknown key (not a kernel setting nor the section of a known plugin); did you mean "monitor"?']);
  assert.equal(await problemsOf({ Log_Level: 'info' }),
    ['Log_Level: unknown key (not a kernel setting nor the section of a known plugin); did you mean "log-level"?']);
  assert.equal(await problemsOf({ 'kit-unknown': 1 }), ['kit-unknown: unknown key (not a kernel setting nor the section of a known plugin)']);
});

test('an unknown key inside a section is answered with the nearest key of that section', async () => {
  assert.equal(await problemsOf({ monitor: { 'status-intervall': '10s' } }),
    ['plugin "monitor": monitor: has unknown key(s): status-intervall (did you mean "status-interval"?)']);
  assert.equal(await problemsOf({ 'event-store': { 'max-event-per-instance': 50, typo: 1 } }),
    ['event-store: has unknown key(s): max-event-per-instance, typo (did you mean "max-events-per-instance" for "max-event-per-instance"?)']);
  assert.equal(await problemsOf({ 'cluster-redis': { url: 'redis://127.0.0.1:6379', 'node_id': 'a' } }),
    ['plugin "cluster-redis": cluster-redis: has unknown key(s): node_id (did you mean "node-id"?)']);
});

test('a plugin name near a built-in one is answered with it, never with `npm install`', async () => {
  for (const [typo, meant] of [['notify-slak', 'notify-slack'], ['montor', 'monitor'], ['Notify_Slack', 'notify-slack'], ['discovery-kubernets', 'discovery-kubernetes']]) {
    const problems = await problemsOf({ plugins: ['rest-api', typo] });
    assert.equal(problems, [`plugin "${typo}": not a built-in plugin; did you mean "${meant}"? (a plugin of another name loads from ./path or an installed npm package)`]);
    assert.not.match(problems.join('\n'), 'npm install');
  }
  // Far from every built-in: it may be a package, so installing it is still what to do.
  assert.match((await problemsOf({ plugins: ['vigil-plugin-not-installed'] })).join('\n'), 'npm install vigil-plugin-not-installed');
});

test('an unknown enum value is answered with the nearest allowed value', async () => {
  assert.equal(await problemsOf({ 'log-format': 'jsn' }), ['log-format: must be one of the following values: text, json (did you mean "json"?)']);
  assert.equal(await problemsOf({ 'log-level': 'ifno' }), ['log-level: must be one of the following values: error, warn, info, debug (did you mean "info"?)']);
  assert.equal(await problemsOf({ 'log-level': 'verbose' }), ['log-level: must be one of the following values: error, warn, info, debug']);
  assert.equal(await problemsOf({ 'cluster-redis': { url: 'redis://127.0.0.1:6379', 'on-outage': 'read-olny' } }),
    ['plugin "cluster-redis": cluster-redis.on-outage: must be one of the following values: read-only, exit (did you mean "read-only"?)']);
});

test('a unit-less duration below 1000 where the default is a second or more is a warning naming the key and the unit it was read in', async () => {
  const warned = await prepared({ monitor: { 'default-timeout': 5, 'status-interval': '5', 'info-interval': 30_000, 'status-lifetime': 0 }, 'plugin-timeout': 30 });
  assert.equal([...warned.warnings].sort(), [
    'monitor.default-timeout: 5 has no unit, so it was read as 5 milliseconds (its default is 10s); write 5s for seconds, or 5ms to keep milliseconds',
    'monitor.status-interval: 5 has no unit, so it was read as 5 milliseconds (its default is 10s); write 5s for seconds, or 5ms to keep milliseconds',
    'plugin-timeout: 30 has no unit, so it was read as 30 milliseconds (its default is 10s); write 30s for seconds, or 30ms to keep milliseconds',
  ]);
  assert.is(warned.plugins.find((item) => item.plugin.name === 'monitor')!.config && (warned.plugins.find((item) => item.plugin.name === 'monitor')!.config as Record<string, number>)['default-timeout'], 5, 'still read as written');
  const quiet = await prepared({ monitor: { 'default-timeout': '5s', 'status-interval': '500ms', 'info-interval': 1500 } });
  assert.equal(quiet.warnings, []);
});

test('an unset ${VAR} is one problem, not another for the value it leaves', async () => {
  assert.equal(await problemsOf({ port: '${VIGIL_TYPO_PORT}' }),
    ['port: environment variable VIGIL_TYPO_PORT is not set (use ${VIGIL_TYPO_PORT:-default} for a default)']);
  assert.equal(await problemsOf({ 'cluster-redis': { url: '${VIGIL_TYPO_REDIS_URL}' } }),
    ['cluster-redis.url: environment variable VIGIL_TYPO_REDIS_URL is not set (use ${VIGIL_TYPO_REDIS_URL:-default} for a default)']);
  // Other problems of the file are still all reported.
  assert.equal(await problemsOf({ port: '${VIGIL_TYPO_PORT}', 'log-format': 'xml' }), [
    'port: environment variable VIGIL_TYPO_PORT is not set (use ${VIGIL_TYPO_PORT:-default} for a default)',
    'log-format: must be one of the following values: text, json',
  ]);
});

test('--check-config prints the warnings on stderr and still says the config is valid', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-typos-'));
  try {
    const file = join(dir, 'registry.config.yaml');
    writeFileSync(file, 'plugins: [rest-api, monitor]\nmonitor:\n  default-timeout: 5\n');
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--check-config', '--config', file], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.is(code, 0);
    assert.match(stdout, `config OK: ${file}`);
    assert.is(stderr, 'vigil: warning: monitor.default-timeout: 5 has no unit, so it was read as 5 milliseconds (its default is 10s); write 5s for seconds, or 5ms to keep milliseconds\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
