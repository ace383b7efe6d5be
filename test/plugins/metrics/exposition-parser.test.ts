import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseExposition, valueOf } from '../../support/exposition.js';

const TYPE = '# HELP vigil_x Some "help" \\\\ here\\n\n# TYPE vigil_x gauge\n';

test('the test parser reads escapes, specials and histograms as Prometheus does', () => {
  const families = parseExposition(`${TYPE}vigil_x{a="q\\"\\\\\\n",b="2",} 1.5e3\nvigil_x NaN 1700000000\n# a comment\n\n`
    + '# TYPE vigil_h histogram\nvigil_h_bucket{le="1"} 1\nvigil_h_bucket{le="+Inf"} 2\nvigil_h_sum 3\nvigil_h_count 2\n');
  assert.is(families.get('vigil_x')!.help, 'Some "help" \\ here\n');
  assert.is(valueOf(families, 'vigil_x', { a: 'q"\\\n', b: '2' }), 1500);
  assert.ok(Number.isNaN(families.get('vigil_x')!.samples[1]!.value), 'NaN with a timestamp');
  assert.is(valueOf(families, 'vigil_h_count'), 2);
});

test('the test parser refuses what Prometheus refuses', () => {
  for (const [what, text] of [
    ['no final line feed', `${TYPE}vigil_x 1`],
    ['a sample before its TYPE', 'vigil_y 1\n'],
    ['a second TYPE', `${TYPE}# TYPE vigil_x gauge\n`],
    ['a second HELP', `${TYPE}# HELP vigil_x again\n`],
    ['a bad escape', `${TYPE}vigil_x{a="\\t"} 1\n`],
    ['an unterminated value', `${TYPE}vigil_x{a="1} 1\n`],
    ['a bad label name', `${TYPE}vigil_x{1a="1"} 1\n`],
    ['a bad value', `${TYPE}vigil_x 1,5\n`],
    ['a duplicate series', `${TYPE}vigil_x{a="1"} 1\nvigil_x{a="1"} 2\n`],
    ['buckets that do not add up', '# TYPE vigil_h histogram\nvigil_h_bucket{le="1"} 3\nvigil_h_bucket{le="+Inf"} 2\nvigil_h_sum 3\nvigil_h_count 2\n'],
    ['a histogram without _count', '# TYPE vigil_h histogram\nvigil_h_bucket{le="+Inf"} 2\nvigil_h_sum 3\n'],
  ] as const) {
    assert.throws(() => parseExposition(text), undefined, what);
  }
});

test.run();
