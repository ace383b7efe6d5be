import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderReport } from '../../bench/report.js';
import { machine } from '../../bench/support.js';
import { repoRoot } from '../support/paths.js';

/**
 * bench/run.ts in a child process, writing to a report in a temp folder: over fixture benchmarks
 * (test/fixtures/benchmarks: one crashes, one measures a real server, one lets an error escape),
 * and over the real bench/ui with Chromium hidden.
 */

const RUNNER = join(repoRoot, 'dist', 'bench', 'run.js');
const FIXTURES = join(repoRoot, 'dist', 'test', 'fixtures', 'benchmarks');

let dir = '';
test.before(() => {
  dir = mkdtempSync(join(tmpdir(), 'vigil-bench-run-'));
});
test.after(() => {
  rmSync(dir, { recursive: true, force: true });
});

function bench(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, ...args], { cwd: repoRoot, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

const resultLines = (output: string) => output.split('\n').filter((line) => line.startsWith('RESULT '));
const rows = (report: string) => report.split('\n').filter((line) => line.startsWith('| `'));

test('a benchmark that crashes or lets an error escape costs only its own figures: the others are printed and recorded', async () => {
  const report = join(dir, 'fixtures.md');
  writeFileSync(report, renderReport('', [
    { name: 'fixture-requests', value: 1, target: 3, kind: 'min' },
    { name: 'fixture-retired', value: 7, target: 9, kind: 'max' },
  ], `earlier, ${machine()}`)); // an earlier run on this machine: its rows are the ones this run replaces
  const { code, output } = await bench([], { BENCH_DIR: FIXTURES, BENCH_REPORT: report });
  assert.is(code, 1, output);
  assert.match(output, 'crashes: could not run: Error: crashed on purpose');
  assert.match(output, 'stray: could not run: Error: thrown from a timer on purpose');
  assert.equal(resultLines(output), [
    'RESULT fixture-crash value=NaN target=1 pass=no',
    'RESULT fixture-crash-too value=NaN target=2 pass=no',
    'RESULT fixture-requests value=3 target=3 pass=yes',
    'RESULT fixture-stray value=NaN target=1 pass=no',
  ]);
  const summary = output.slice(output.indexOf('report: '));
  assert.match(summary, 'fixture-crash: not measured: crashed on purpose\nfixture-crash-too: not measured: crashed on purpose\n' +
    'fixture-stray: not measured: thrown from a timer on purpose\nRESULT ');
  const written = rows(readFileSync(report, 'utf8')).map((row) => row.replace(/ \| [^|]+ \|$/, ' |'));
  // The measured figure keeps its place; the one no benchmark declares any more is gone.
  assert.equal(written, [
    '| `fixture-requests` | 3 | three requests sent | — | ≥ 3 | yes |',
    '| `fixture-crash` | not measured | not measured: crashed on purpose | — | ≥ 1 | **no** |',
    '| `fixture-crash-too` | not measured | not measured: crashed on purpose | — | ≤ 2 ms | **no** |',
    '| `fixture-stray` | not measured | not measured: thrown from a timer on purpose | — | ≥ 1 | **no** |',
  ]);
});

test('a benchmark of parts: a part that throws costs only its own figures, one not asked for keeps its row and prints no RESULT', async () => {
  const report = join(dir, 'parts.md');
  const ranOn = `earlier, ${machine()}`;
  writeFileSync(report, renderReport('', [
    { name: 'fixture-part-measured', value: 0, target: 1, kind: 'min' },
    { name: 'fixture-part-skipped', value: 5, target: 1, kind: 'min', baseline: 'measured before' },
  ], ranOn));
  const { code, output } = await bench([], { BENCH_DIR: join(repoRoot, 'dist', 'test', 'fixtures', 'benchmarks-parts'), BENCH_REPORT: report });
  assert.is(code, 1, output);
  assert.match(output, 'parts: could not run: Error: the second part crashed on purpose');
  assert.match(output, 'fixture-part-skipped: not run: not asked for (FIXTURE_ONLY)\n');
  assert.equal(resultLines(output), [
    'RESULT fixture-part-measured value=1 target=1 pass=yes',
    'RESULT fixture-part-crashed value=NaN target=1 pass=no',
  ]);
  const written = rows(readFileSync(report, 'utf8'));
  assert.equal(written.map((row) => row.replace(/ \| [^|]+ \|$/, ' |')), [
    '| `fixture-part-measured` | 1 | the first part | — | ≥ 1 | yes |',
    '| `fixture-part-skipped` | 5 | measured before | — | ≥ 1 | yes |',
    '| `fixture-part-crashed` | not measured | not measured: the second part crashed on purpose | — | ≥ 1 | **no** |',
  ]);
  assert.ok(written[1]!.endsWith(`| ${ranOn} |`), 'the row of the part not asked for is the earlier run\'s');
});

test('bench/ui without Chromium: it says why and reports its figure as not measured, before starting anything', async () => {
  const report = join(dir, 'ui.md');
  const { code, output } = await bench(['ui'], { BENCH_REPORT: report, VIGIL_BIN_CHROMIUM: '/nonexistent/chromium' });
  assert.is(code, 1, output);
  const why = 'chromium not found (looked in VIGIL_BIN_CHROMIUM=/nonexistent/chromium): install it with `apt-get install chromium`';
  assert.match(output, `ui-interactive-ms: not measured: ${why}\n`);
  assert.equal(resultLines(output), ['RESULT ui-interactive-ms value=NaN target=2000 pass=no']);
  assert.equal(rows(readFileSync(report, 'utf8')).map((row) => row.replace(/ \| [^|]+ \|$/, ' |')), [
    `| \`ui-interactive-ms\` | not measured | not measured: ${why} | — | ≤ 2000 ms | **no** |`,
  ]);
});

test.run();
