import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { REPORT_PATH, writeReport } from './report.js';
import { notMeasured, resultLine, type Benchmark, type Figure } from './support.js';

/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME [NAME...]` runs some. Each is a
 * folder under bench/ whose index exports `figures` (what it reports, with targets) and
 * `run(): Promise<Figure[]>`; every figure ends as one `RESULT <figure> value=<v> target=<t>
 * pass=yes|no` line, and a row in bench/REPORT.md. A benchmark that throws, or cannot run here,
 * costs only its own figures (those it had not yet handed over, for one of several parts): they are reported as `value=NaN ... pass=no` with the reason, the
 * others are still measured and recorded, and the run exits 1. BENCH_DIR and BENCH_REPORT point
 * the runner at other benchmarks and another report (its own tests do).
 */
const benchDir = process.env.BENCH_DIR ?? dirname(fileURLToPath(import.meta.url));
const reportPath = process.env.BENCH_REPORT ?? REPORT_PATH;
const available = readdirSync(benchDir).filter((name) => existsSync(join(benchDir, name, 'index.js'))).sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(1);
}

const firstLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n')[0]!;

async function load(name: string): Promise<Benchmark> {
  const module = (await import(pathToFileURL(join(benchDir, name, 'index.js')).href)) as Partial<Benchmark>;
  if (!Array.isArray(module.figures) || typeof module.run !== 'function') throw new Error(`bench/${name}/index.js exports no \`figures\` and \`run()\``);
  return module as Benchmark;
}

// Every benchmark is loaded (not run) to know the figures still declared: rows of retired ones go.
const benchmarks = new Map<string, Benchmark | Error>();
for (const name of available) benchmarks.set(name, await load(name).catch((error: unknown) => (error instanceof Error ? error : new Error(String(error)))));
const loadedAll = [...benchmarks.values()].every((bench) => !(bench instanceof Error));
const declared = loadedAll ? new Set([...benchmarks.values()].flatMap((bench) => (bench as Benchmark).figures.map((spec) => spec.name))) : undefined;

// A stray error in a benchmark's callbacks ends that benchmark, not the run.
let abortCurrent: ((error: unknown) => void) | undefined;
const onStray = (error: unknown) => {
  if (abortCurrent) return abortCurrent(error);
  console.error(error);
  process.exit(1);
};
process.on('uncaughtException', onStray);
process.on('unhandledRejection', onStray);

const figures: Figure[] = [];
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`== ${name}`);
  const bench = benchmarks.get(name)!;
  if (bench instanceof Error) {
    console.log(`${name}: cannot load: ${bench.stack ?? bench.message}`);
    figures.push(notMeasured({ name, target: Number.NaN, kind: 'min' }, `the benchmark did not load: ${firstLine(bench)}`));
    continue;
  }
  // Figures the benchmark handed over before it ended; a throw after them costs only the rest.
  const handed = new Map<string, Figure>();
  const hand = (list: readonly Figure[]) => {
    for (const figure of list) handed.set(figure.name, figure);
  };
  try {
    const aborted = new Promise<never>((_, reject) => { abortCurrent = reject; });
    hand(await Promise.race([bench.run(hand), aborted]));
    for (const spec of bench.figures) {
      figures.push(handed.get(spec.name) ?? notMeasured(spec, 'the benchmark did not report it'));
    }
    for (const figure of [...handed.values()].filter((figure) => !bench.figures.some((spec) => spec.name === figure.name))) {
      console.log(`${name}: reports \`${figure.name}\`, which it does not declare in \`figures\``);
      figures.push(figure);
    }
  } catch (error) {
    console.log(`${name}: could not run: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    figures.push(...bench.figures.map((spec) => handed.get(spec.name) ?? notMeasured(spec, firstLine(error))));
  } finally {
    abortCurrent = undefined;
  }
}
// A part not asked for leaves its rows as they are, as a benchmark not asked for does.
const run = figures.filter((figure) => !figure.notRun);
writeReport(run, reportPath, declared);
console.log(`report: ${reportPath}`);
// Why each figure was not measured, then every figure: the reasons stay next to the results.
for (const figure of figures.filter((figure) => figure.notRun)) console.log(`${figure.name}: not run: ${figure.failure}`);
const unmeasured = run.filter((figure) => figure.failure !== undefined);
for (const figure of unmeasured) console.log(`${figure.name}: not measured: ${figure.failure}`);
for (const figure of run) console.log(resultLine(figure));
if (unmeasured.length > 0) process.exitCode = 1;
