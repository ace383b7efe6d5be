import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { machine, passes, root, round, type Figure } from './support.js';

export const REPORT_PATH = join(root, 'bench', 'REPORT.md');

const HEADER = `# Benchmark report

Written by \`npm run bench\` (every benchmark) and \`npm run bench -- NAME\` (one; only its rows
change). Each row is the latest run of that figure: its value, the baseline measured in the same
run, Vigil's result over the baseline's, the target, and the machine and date of the run. The
machine is shared and noisy: trust ratios over absolute numbers, and rerun before believing a
surprise. What each benchmark does is described at the top of its \`bench/NAME/index.ts\`.

| figure | value | baseline (same run) | ratio | target | pass | run |
|---|---|---|---|---|---|---|
`;

/** Where hand-written findings start; everything from this line on is kept as it is. */
const NOTES = '\n## Notes';

/** The hand-written part of an existing report (from `## Notes` on), or ''. */
function notesOf(text: string): string {
  const at = text.indexOf(NOTES);
  return at < 0 ? '' : text.slice(at);
}

/** Rows of an existing report, by figure name, so a partial run keeps the others. */
function existingRows(text: string): Map<string, string> {
  const rows = new Map<string, string>();
  const notes = text.indexOf(NOTES);
  for (const line of (notes < 0 ? text : text.slice(0, notes)).split('\n')) {
    const name = /^\| `([^`]+)` \|/.exec(line)?.[1];
    if (name) rows.set(name, line);
  }
  return rows;
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
 * Merges this run's figures into the report (new figures last, existing ones in place). Given
 * `declared`, every figure some benchmark still declares, the rows of retired figures are dropped.
 */
export function renderReport(previous: string, figures: readonly Figure[], ranOn: string, declared?: ReadonlySet<string>): string {
  const rows = existingRows(previous);
  if (declared) for (const name of rows.keys()) if (!declared.has(name)) rows.delete(name);
  for (const figure of figures) rows.set(figure.name, reportRow(figure, ranOn));
  return `${HEADER}${[...rows.values()].join('\n')}\n${notesOf(previous)}`;
}

export function writeReport(figures: readonly Figure[], path = REPORT_PATH, declared?: ReadonlySet<string>, now = new Date()): void {
  const previous = existsSync(path) ? readFileSync(path, 'utf8') : '';
  writeFileSync(path, renderReport(previous, figures, `${now.toISOString().slice(0, 10)}, ${machine()}`, declared));
}
