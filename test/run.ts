import { register } from 'node:module';
import { inspect } from 'node:util';
import { pathToFileURL } from 'node:url';
import { parse } from 'uvu/parse';

/**
 * `node dist/test/run.js DIR [PATTERN]`: what `npm test` runs. uvu's own runner (the same files,
 * order and output as `uvu DIR PATTERN`), with every suite's hooks guarded (support/uvu-guard.ts).
 * After uvu's summary it prints what uvu would not: each failed test again, with its file (a log
 * shown only by its tail still names what failed); each hook that threw, with its error; each
 * file that did not load or left tests without `run()`; one line per missing program whose tests
 * were skipped; and a plain `N passed, N failed, N skipped` line (.ci/run reads it). It exits 1
 * when anything failed or did not run.
 */

interface Summary {
  total: number;
  passed: number;
  skipped: number;
}
type SuiteRun = () => Promise<[errors: string | true, passed: number, skipped: number, total: number]>;
type Queue = Array<Array<string | SuiteRun>>;
const uvuGlobals = globalThis as { UVU_DEFER?: number; UVU_INDEX?: number; UVU_QUEUE?: Queue } & Record<symbol, unknown>;

const [dir, pattern] = process.argv.slice(2);
if (!dir) {
  console.error('usage: node dist/test/run.js DIR [PATTERN]');
  process.exit(2);
}
// As uvu's CLI does, and before kleur (imported by uvu) reads it.
process.env.FORCE_COLOR ??= '1';

const guardUrl = new URL('./support/uvu-guard.js', import.meta.url).href;
register('./support/uvu-resolve-hook.js', import.meta.url, { data: { guard: guardUrl } });
// Set before uvu loads: it then queues suites for `exec` instead of running each file on its own.
uvuGlobals.UVU_DEFER = 1;
const guard = (await import(guardUrl)) as typeof import('./support/uvu-guard.js');
const binaries = await import('./support/require-binary.js');
uvuGlobals[binaries.RUNNER_FLAG] = true;

const problems: string[] = [];
let uncounted = 0;
const { suites } = await parse(dir, pattern);
const queue: Queue = (uvuGlobals.UVU_QUEUE ??= []);
for (const [index, { name, file }] of suites.entries()) {
  uvuGlobals.UVU_INDEX = index;
  queue.push([name]);
  guard.loading(name);
  try {
    await import(pathToFileURL(file).href);
  } catch (error) {
    problems.push(`${name} did not load:\n${indent(inspect(error))}`);
    uncounted += 1;
  }
  for (const unrun of guard.takeUnrun()) {
    problems.push(`${unrun.file}: ${unrun.tests} test(s) of suite "${unrun.suite}" registered, and its run() never called`);
    uncounted += unrun.tests;
  }
}

// uvu's exec prints only its own totals: wrap each queued suite to count them too.
const summary: Summary = { total: 0, passed: 0, skipped: 0 };
const failedTests: string[] = [];
for (const group of queue) {
  const file = typeof group[0] === 'string' ? group[0] : '';
  group.forEach((entry, i) => {
    if (typeof entry !== 'function') return;
    group[i] = async () => {
      const result = await entry();
      summary.total += result[3];
      summary.passed += result[1];
      summary.skipped += result[2];
      if (typeof result[0] === 'string') failedTests.push(`${file}:\n${result[0]}`);
      return result;
    };
  });
}
await guard.exec();

for (const failure of guard.hookFailures()) {
  const where = `${failure.file}${failure.suite ? ` (suite "${failure.suite}")` : ''}`;
  const after = failure.hook === 'after.each' ? ` after "${failure.test}"` : '';
  const consequence = failure.hook === 'after' ? '' : ': the suite\'s remaining tests did not run and count as failed';
  problems.push(`${where}: the ${failure.hook} hook threw${after}${consequence}\n${indent(inspect(failure.error))}`);
  if (failure.hook === 'after') uncounted += 1;
}
for (const failure of failedTests) console.log(`  FAILED IN ${failure}`);
for (const problem of problems) console.log(`  FAIL  ${problem}\n`);
for (const missing of binaries.missingBinaries()) console.log(`  ${binaries.skipLine(missing)}`);

let failed = summary.total - summary.passed + uncounted;
if (failed === 0 && (problems.length > 0 || process.exitCode)) failed = 1;
console.log(`${summary.passed} passed, ${failed} failed, ${summary.skipped} skipped`);
process.exitCode = failed > 0 ? 1 : 0;

function indent(text: string): string {
  return text.split('\n').map((line) => `    ${line}`).join('\n');
}
