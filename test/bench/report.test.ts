import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { historyRow, renderReport, reportRow } from '../../bench/report.js';
import type { Figure } from '../../bench/support.js';

const cpu: Figure = { name: 'monitoring-cpu', value: 0.23197, target: 0.5, kind: 'max', unit: 'share of one core', baseline: 'poller 10% | of one core', ratio: 2.2311 };
const fanout: Figure = { name: 'sse-fanout-ms', value: 115, target: 50, kind: 'max', unit: 'ms' };

test('a row holds the value, the baseline, the ratio, the target, the verdict and the run', () => {
  assert.is(reportRow(cpu, 'day, box'),
    '| `monitoring-cpu` | 0.232 share of one core | poller 10% \\| of one core | 2.231x | ≤ 0.5 share of one core | yes | day, box |');
  assert.is(reportRow(fanout, 'day, box'), '| `sse-fanout-ms` | 115 ms | none measured | — | ≤ 50 ms | **no** | day, box |');
});

test('a partial run replaces only its own rows and keeps the others in place', () => {
  const first = renderReport('', [cpu, fanout], 'monday, box');
  const second = renderReport(first, [{ ...fanout, value: 40 }, { name: 'ui-interactive-ms', value: 900, target: 2000, kind: 'max' }], 'tuesday, box');
  const rows = second.split('\n').filter((line) => line.startsWith('| `'));
  assert.equal(rows, [
    reportRow(cpu, 'monday, box'),
    reportRow({ ...fanout, value: 40 }, 'tuesday, box'),
    '| `ui-interactive-ms` | 900 | none measured | — | ≤ 2000 | yes | tuesday, box |',
  ]);
  assert.ok(second.startsWith('# Benchmark report\n'));
});

test('a figure not measured says why in place of its value and baseline, and does not pass', () => {
  assert.is(reportRow({ ...fanout, value: Number.NaN, failure: 'chromium not found' }, 'day, box'),
    '| `sse-fanout-ms` | not measured | not measured: chromium not found | — | ≤ 50 ms | **no** | day, box |');
});

test('given the figures still declared, the rows of retired ones are dropped', () => {
  const first = renderReport('', [cpu, fanout], 'monday, box');
  const second = renderReport(first, [{ ...cpu, value: 0.3 }], 'tuesday, box', new Set(['monitoring-cpu']));
  assert.equal(second.split('\n').filter((line) => line.startsWith('| `')), [reportRow({ ...cpu, value: 0.3 }, 'tuesday, box')]);
  assert.is(renderReport(first, [], 'tuesday, box'), first, 'without the declared set nothing is dropped');
});

test('the hand-written notes after the table stay as they are, and their tables are not rows', () => {
  const notes = '\n## Notes\n\nFindings.\n\n| `monitoring-cpu` | a table in the notes |\n';
  const first = renderReport('', [cpu], 'monday, box') + notes;
  const second = renderReport(first, [{ ...cpu, value: 0.3 }, fanout], 'tuesday, box');
  assert.ok(second.endsWith(notes));
  assert.equal(second.slice(0, second.indexOf('\n## Notes')).split('\n').filter((line) => line.startsWith('| `')), [
    reportRow({ ...cpu, value: 0.3 }, 'tuesday, box'),
    reportRow(fanout, 'tuesday, box'),
  ]);
});

test('a run on another machine adds its own row after the figure\'s rows, so each machine keeps its latest value', () => {
  const first = renderReport('', [cpu, fanout], '2026-11-25, 2 x Intel Xeon, 24 GiB, Node v20');
  const second = renderReport(first, [{ ...cpu, value: 0.3 }], '2026-11-27, 2 x AMD EPYC, 24 GiB, Node v20');
  const table = second.slice(0, second.indexOf('\n## History'));
  assert.equal(table.split('\n').filter((line) => line.startsWith('| `')), [
    reportRow(cpu, '2026-11-25, 2 x Intel Xeon, 24 GiB, Node v20'),
    reportRow({ ...cpu, value: 0.3 }, '2026-11-27, 2 x AMD EPYC, 24 GiB, Node v20'),
    reportRow(fanout, '2026-11-25, 2 x Intel Xeon, 24 GiB, Node v20'),
  ]);
  const third = renderReport(second, [{ ...cpu, value: 0.2 }], '2026-11-28, 2 x Intel Xeon, 24 GiB, Node v20.21');
  assert.equal(third.split('\n').filter((line) => line.startsWith('| `')), [
    reportRow({ ...cpu, value: 0.2 }, '2026-11-28, 2 x Intel Xeon, 24 GiB, Node v20.21'),
    reportRow({ ...cpu, value: 0.3 }, '2026-11-27, 2 x AMD EPYC, 24 GiB, Node v20'),
    reportRow(fanout, '2026-11-25, 2 x Intel Xeon, 24 GiB, Node v20'),
  ], 'the same machine with another Node replaces its row');
});

test('a replaced row moves to the History, newest first, with its date and machine; later runs keep it', () => {
  const notes = '\n## Notes\n\nFindings.\n';
  const first = renderReport('', [cpu], 'monday, box') + notes;
  const second = renderReport(first, [{ ...cpu, value: 0.3 }], 'tuesday, box');
  const third = renderReport(second, [{ ...cpu, value: 0.25 }, fanout], 'wednesday, box');
  const history = third.slice(third.indexOf('\n## History'), third.indexOf('\n## Notes'));
  assert.equal(history.split('\n').filter((line) => line.startsWith('| tuesday') || line.startsWith('| monday')), [
    historyRow(reportRow({ ...cpu, value: 0.3 }, 'tuesday, box')),
    historyRow(reportRow(cpu, 'monday, box')),
  ]);
  assert.is(historyRow(reportRow(cpu, 'monday, box')), '| monday, box | `monitoring-cpu` | 0.232 share of one core | poller 10% \\| of one core | 2.231x | ≤ 0.5 share of one core | yes |');
  assert.ok(third.endsWith(notes), 'the notes stay last, as they were');
  assert.is(renderReport(third, [], 'thursday, box'), third, 'a run without figures changes nothing');
});

test.run();
