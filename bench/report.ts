import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, passes, root, round, type Figure } from './support.js';

export const REPORT_PATH = join(root, 'bench', 'REPORT.md');

const HEADER = `# Benchmark report

Written by \`npm run bench\` (every benchmark) and \`npm run bench -- NAME\` (one; only its rows
change). Each row is the latest run of that figure on one machine: its value, the baseline
measured in the same run, Vigil's result over the baseline's, the target, and the machine and date
of the run; a figure measured on several machines has a row for each. A row a run replaces moves
to the History below. The machines are shared and noisy: trust ratios over absolute numbers, and
rerun before believing a surprise. What each benchmark does is described at the top of its
\`bench/NAME/index.ts\` and in docs/benchmarks.md.

| figure | value | baseline (same run) | ratio | target | pass | run |
|---|---|---|---|---|---|---|
`;

/** Where hand-written findings start; everything from this line on is kept as it is. */
const NOTES = '\n## Notes';

/** Where the rows earlier runs replaced are kept, between the table and the notes. */
const HISTORY = '\n## History';
const HISTORY_HEADER = `${HISTORY}

Rows the runs above replaced, newest first: each figure as it was, with the date and machine of
its run. \`npm run bench\` adds to it and never removes anything.

| run | figure | value | baseline (same run) | ratio | target | pass |
|---|---|---|---|---|---|---|
`;

/** The hand-written part of an existing report (from `## Notes` on), or ''. */
function notesOf(text: string): string {
  const at = text.indexOf(NOTES);
  return at < 0 ? '' : text.slice(at);
}

/** The generated part of a report: the table, then the History (either may be ''). */
function generatedParts(text: string): { table: string; history: string } {
  const notes = text.indexOf(NOTES);
  const generated = notes < 0 ? text : text.slice(0, notes);
  const history = generated.indexOf(HISTORY);
  return history < 0 ? { table: generated, history: '' } : { table: generated.slice(0, history), history: generated.slice(history) };
}

/** The cells of a table row, escaped pipes (`\\|`) kept inside their cell. */
function cellsOf(row: string): string[] {
  return row.split(/(?<!\\)\|/).slice(1, -1).map((cell) => cell.trim());
}

/** A row's figure name, or undefined for a line that is no row of the current table. */
function figureOf(line: string): string | undefined {
  return /^\| `([^`]+)` \|/.exec(line)?.[1];
}

/** Which figure on which machine a row is (its run cell is "date, machine, memory, Node"). */
function rowKey(row: string): string {
  const run = cellsOf(row).at(-1) ?? '';
  return `${figureOf(row)} on ${run.split(', ')[1] ?? run}`;
}

/** A row of the current table as the History holds it: the run first. */
export function historyRow(row: string): string {
  const cells = cellsOf(row);
  return `| ${[cells.at(-1), ...cells.slice(0, -1)].join(' | ')} |`;
}

/** Rows of an existing report, keyed by figure and machine, so a partial run keeps the others. */
function existingRows(text: string): Array<[key: string, row: string]> {
  return generatedParts(text).table.split('\n').filter((line) => figureOf(line) !== undefined).map((line) => [rowKey(line), line]);
}

/** The History's rows of an existing report, newest first. */
function historyOf(text: string): string[] {
  return generatedParts(text).history.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| run |'));
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function reportRow(figure: Figure, ranOn: string): string {
  const unit = figure.unit ? ` ${figure.unit}` : '';
  const cells = [
    `\`${figure.name}\``,
    figure.failure === undefined ? `${round(figure.value)}${unit}` : 'not measured',
    figure.failure === undefined ? figure.baseline ?? 'none measured' : `not measured: ${figure.failure}`,
    figure.ratio === undefined ? '—' : `${round(figure.ratio)}x`,
    `${figure.kind === 'min' ? '≥' : '≤'} ${figure.target}${unit}`,
    passes(figure) ? 'yes' : '**no**',
    ranOn,
  ];
  return `| ${cells.map(cell).join(' | ')} |`;
}

/**
 * Merges this run's figures into the report: a figure's row for this machine is replaced in place
 * (the old row moves to the History), a figure new on this machine goes after that figure's other
 * rows, a new figure last. Given `declared`, every figure some benchmark still declares, the rows
 * of retired figures are dropped from the table (the History keeps what it has).
 */
export function renderReport(previous: string, figures: readonly Figure[], ranOn: string, declared?: ReadonlySet<string>): string {
  const rows = existingRows(previous).filter(([, row]) => !declared || declared.has(figureOf(row)!));
  const replaced: string[] = [];
  for (const figure of figures) {
    const row = reportRow(figure, ranOn);
    const key = rowKey(row);
    const at = rows.findIndex(([existing]) => existing === key);
    if (at >= 0) {
      replaced.push(historyRow(rows[at]![1]));
      rows[at] = [key, row];
      continue;
    }
    const lastOfFigure = rows.findLastIndex(([, existing]) => figureOf(existing) === figure.name);
    rows.splice(lastOfFigure < 0 ? rows.length : lastOfFigure + 1, 0, [key, row]);
  }
  const history = [...replaced, ...historyOf(previous)];
  const historySection = history.length === 0 ? '' : `${HISTORY_HEADER}${history.join('\n')}\n`;
  return `${HEADER}${rows.map(([, row]) => row).join('\n')}\n${historySection}${notesOf(previous)}`;
}

export function writeReport(figures: readonly Figure[], path = REPORT_PATH, declared?: ReadonlySet<string>, now = new Date()): void {
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  writeFileSync(path, renderReport(previous, figures, `${now.toISOString().slice(0, 10)}, ${machine()}`, declared));
}
