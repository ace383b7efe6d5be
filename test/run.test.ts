import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from './support/paths.js';

/**
 * The runner `npm test` uses (test/run.ts), run in a child process over fixture suites
 * (test/fixtures/suites, named *.suite.ts so the real run does not pick them up) and over the real
 * browser tests with Chromium hidden.
 */

const RUNNER = join(repoRoot, 'dist', 'test', 'run.js');
const SUITES = join(repoRoot, 'dist', 'test', 'fixtures', 'suites');

interface Run {
  readonly code: number | null;
  /** stdout and stderr together, without colours. */
  readonly output: string;
  readonly lastLine: string;
}

function run(dir: string, pattern: string, env: Record<string, string> = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, dir, pattern], {
      cwd: repoRoot,
      env: { ...process.env, FORCE_COLOR: '0', VIGIL_REQUIRE_BINARIES: '', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => {
      const clean = output.replace(/\x1B\[[0-9;]*[A-Za-z]/g, '');
      resolve({ code, output: clean, lastLine: clean.trimEnd().split('\n').at(-1) ?? '' });
    });
  });
}

const summaryOf = (output: string) => /Total:\s+(\d+)\s+Passed:\s+(\d+)\s+Skipped:\s+(\d+)/.exec(output)?.slice(1).map(Number);

test('a before hook that throws fails the run with its error printed; the other files still run', async () => {
  const result = await run(SUITES, '(before-throws|passing)\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'before-throws.suite.js: the before hook threw: the suite\'s remaining tests did not run and count as failed');
  assert.match(result.output, 'Error: before hook failed on purpose');
  assert.equal(summaryOf(result.output), [4, 2, 0]);
  assert.is(result.lastLine, '2 passed, 2 failed, 0 skipped');
});

test('an after.each hook that throws fails the run, naming the test it ran after', async () => {
  const result = await run(SUITES, 'after-each-throws\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'after-each-throws.suite.js: the after.each hook threw after "first"');
  assert.match(result.output, 'Error: after.each hook failed on purpose');
  assert.is(result.output.split('after.each hook failed on purpose').length - 1, 1, 'reported once');
  assert.is(result.lastLine, '0 passed, 2 failed, 0 skipped');
});

test('an after hook that throws fails the run, and the files after it still run', async () => {
  const result = await run(SUITES, '(after-throws|passing)\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'after-throws.suite.js: the after hook threw\n');
  assert.match(result.output, 'Error: after hook failed on purpose');
  assert.equal(summaryOf(result.output), [3, 3, 0]);
  assert.is(result.lastLine, '3 passed, 1 failed, 0 skipped');
});

test('a failed test is printed again after the summary, with its file, so the end of a log names it', async () => {
  const result = await run(SUITES, '(assertion-fails|passing)\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  const afterSummary = result.output.slice(result.output.indexOf('Duration:'));
  assert.match(afterSummary, /FAILED IN assertion-fails\.suite\.js:\n\s*FAIL\s+"fails on purpose"/);
  assert.match(afterSummary, 'expected-value');
  assert.not.match(afterSummary, 'passing.suite.js');
  assert.is(result.lastLine, '3 passed, 1 failed, 0 skipped');
});

test('uvu imported by its file path is guarded too', async () => {
  const result = await run(SUITES, 'by-path\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'Error: before hook of a by-path import failed on purpose');
  assert.is(result.lastLine, '0 passed, 1 failed, 0 skipped');
});

test('tests registered without test.run() fail the run', async () => {
  const result = await run(SUITES, 'no-run\\.suite\\.js$');
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'no-run.suite.js: 1 test(s) of suite "" registered, and its run() never called');
  assert.is(result.lastLine, '0 passed, 1 failed, 0 skipped');
});

test('a missing program: its tests are skipped, its hooks do not run, one line names the install command', async () => {
  const result = await run(SUITES, '(needs-missing|passing)\\.suite\\.js$');
  assert.is(result.code, 0, result.output);
  assert.equal(summaryOf(result.output), [2, 2, 2]);
  const lines = result.output.split('\n').filter((line) => line.includes('apt-get install vigil-no-such-program'));
  assert.equal(lines, ['  Skipped 2 tests: vigil-no-such-program not found (looked in PATH, or VIGIL_BIN_VIGIL_NO_SUCH_PROGRAM): ' +
    'install it with `apt-get install vigil-no-such-program`']);
  assert.not.match(result.output, 'must not run');
  assert.is(result.lastLine, '2 passed, 0 failed, 2 skipped');
});

test('under CI (VIGIL_REQUIRE_BINARIES=1) a missing program fails the run with the same message', async () => {
  const result = await run(SUITES, 'needs-missing\\.suite\\.js$', { VIGIL_REQUIRE_BINARIES: '1' });
  assert.is(result.code, 1, result.output);
  assert.match(result.output, 'Error: vigil-no-such-program not found (looked in PATH, or VIGIL_BIN_VIGIL_NO_SUCH_PROGRAM): ' +
    'install it with `apt-get install vigil-no-such-program` (VIGIL_REQUIRE_BINARIES=1: a missing program fails the run)');
  assert.not.match(result.output, 'must not run');
  assert.is(result.lastLine, '0 passed, 2 failed, 0 skipped');
});

const BROWSER_TESTS = '(auth|instance-page|live-list|resume)\\.test\\.js$';
const UI_TESTS = join(repoRoot, 'dist', 'test', 'plugins', 'ui');

test('the browser tests without Chromium: all skipped, not failed, with one line naming `apt-get install chromium`', async () => {
  const result = await run(UI_TESTS, BROWSER_TESTS, { VIGIL_BIN_CHROMIUM: '/nonexistent/chromium' });
  assert.is(result.code, 0, result.output);
  const [total, passed, skipped] = summaryOf(result.output) ?? [];
  assert.equal([total, passed], [0, 0], result.output);
  assert.ok(skipped! >= 16, `${skipped} skipped`);
  const lines = result.output.split('\n').filter((line) => line.includes('apt-get install chromium'));
  assert.equal(lines, [`  Skipped ${skipped} tests: chromium not found (looked in VIGIL_BIN_CHROMIUM=/nonexistent/chromium): install it with \`apt-get install chromium\``]);
  assert.is(result.lastLine, `0 passed, 0 failed, ${skipped} skipped`);
});

test('the browser tests without Chromium under CI: every one of them fails', async () => {
  const result = await run(UI_TESTS, BROWSER_TESTS, { VIGIL_BIN_CHROMIUM: '/nonexistent/chromium', VIGIL_REQUIRE_BINARIES: '1' });
  assert.is(result.code, 1, result.output);
  const [total, passed, skipped] = summaryOf(result.output) ?? [];
  assert.ok(total! >= 16 && passed === 0 && skipped === 0, result.output);
  for (const file of ['auth', 'instance-page', 'live-list', 'resume']) {
    assert.match(result.output, `${file}.test.js: the before hook threw`);
  }
  assert.match(result.output, 'chromium not found (looked in VIGIL_BIN_CHROMIUM=/nonexistent/chromium): install it with `apt-get install chromium`');
  assert.is(result.lastLine, `0 passed, ${total} failed, 0 skipped`);
});

test.run();
