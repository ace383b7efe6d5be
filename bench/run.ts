import { readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPORT_PATH, writeReport } from './report.js';
import { resultLine, type Figure } from './support.js';

/**
 * `npm run bench` runs every benchmark; `npm run bench -- NAME [NAME...]` runs some. Each is a
 * folder under bench/ whose index exports `run(): Promise<Figure[]>`; every figure ends as one
 * `RESULT <figure> value=<v> target=<t> pass=yes|no` line, and a row in bench/REPORT.md.
 */
const here = dirname(fileURLToPath(import.meta.url));
const available = readdirSync(here).filter((name) => statSync(join(here, name)).isDirectory()).sort();
const wanted = process.argv.slice(2);
const unknown = wanted.filter((name) => !available.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; available: ${available.join(', ')}`);
  process.exit(1);
}

const figures: Figure[] = [];
for (const name of wanted.length > 0 ? wanted : available) {
  console.log(`== ${name}`);
  const bench = (await import(join(here, name, 'index.js'))) as { run(): Promise<Figure[]> };
  figures.push(...(await bench.run()));
}
writeReport(figures);
console.log(`report: ${REPORT_PATH}`);
for (const figure of figures) console.log(resultLine(figure));
