import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toApplication } from '../../core/store/application.js';
import { buildVersionOf, compareBuildVersions } from '../../core/store/build-version.js';
import { emptyInstance } from '../../core/store/instance.js';
import { severity } from '../../core/store/status.js';
import { tagsOf } from '../../core/store/tags.js';
import type { Instance } from '../../core/store/types.js';

test('buildVersion: build.version, then flat build.version, then version; blank is UNKNOWN', () => {
  assert.is(buildVersionOf({ build: { version: '1.0' }, version: '2.0' }), '1.0');
  assert.is(buildVersionOf({ 'build.version': '1.1', version: '2.0' }), '1.1');
  assert.is(buildVersionOf({ version: '2.0' }), '2.0');
  assert.is(buildVersionOf({ version: '  ' }), 'UNKNOWN');
  assert.is(buildVersionOf({}), null);
  assert.is(buildVersionOf(null), null);
  assert.is(buildVersionOf({ version: 3 }), null);
});

test('build versions order numerically token by token, longer wins ties', () => {
  assert.is(compareBuildVersions('1.11.0', '1.2.0'), 1);
  assert.is(compareBuildVersions('1.0.0.0', '1.0.0'), 1);
  assert.is(compareBuildVersions('1.0.0.RC1', '1.0.0.RC2'), -1);
  assert.is(compareBuildVersions('1.0', '1.0'), 0);
});

test('tags: nested tags object wins, else tags.* keys (case-insensitive prefix)', () => {
  assert.equal(tagsOf({ tags: { a: 'x', n: 1 }, 'tags.b': 'y' }), { a: 'x', n: '1' });
  assert.equal(tagsOf({ 'tags.env': 'prod', 'TAGS.zone': 'a', tagsi: 'no', 'tags.': 'no' }), { env: 'prod', zone: 'a' });
  assert.equal(tagsOf(undefined), {});
});

test('severity: DOWN is most severe, custom statuses rank before it', () => {
  const sorted = ['UP', 'RESTRICTED', 'UNKNOWN', 'OFFLINE', 'OUT_OF_SERVICE', 'DOWN', 'CUSTOM'].sort((a, b) => severity(a) - severity(b));
  assert.equal(sorted, ['CUSTOM', 'DOWN', 'OUT_OF_SERVICE', 'OFFLINE', 'UNKNOWN', 'RESTRICTED', 'UP']);
});

function withStatus(id: string, status: string, at: string): Instance {
  return { ...emptyInstance(id), registered: true, statusInfo: { status, details: {} }, statusTimestamp: at };
}

test('application status: SBA aggregation table', () => {
  const table: [string, string, string][] = [
    ['UP', 'UP', 'UP'], ['DOWN', 'DOWN', 'DOWN'], ['UNKNOWN', 'UNKNOWN', 'UNKNOWN'],
    ['UP', 'DOWN', 'RESTRICTED'], ['UP', 'UNKNOWN', 'RESTRICTED'], ['UP', 'OUT_OF_SERVICE', 'RESTRICTED'],
    ['UP', 'OFFLINE', 'RESTRICTED'], ['UP', 'RESTRICTED', 'RESTRICTED'], ['DOWN', 'UP', 'RESTRICTED'],
    ['DOWN', 'OFFLINE', 'DOWN'], ['OFFLINE', 'UNKNOWN', 'OFFLINE'],
  ];
  for (const [a, b, expected] of table) {
    const app = toApplication('x', [withStatus('1', a, '2026-01-01T00:00:01Z'), withStatus('2', b, '2026-01-01T00:00:02Z')]);
    assert.is(app.status, expected, `${a}+${b}`);
  }
});

test('application timestamp: the latest of one status; for RESTRICTED max(min(others), latest UP)', () => {
  const same = toApplication('x', [withStatus('1', 'UP', '2026-01-01T00:00:01Z'), withStatus('2', 'UP', '2026-01-01T00:00:05Z')]);
  assert.is(same.statusTimestamp, '2026-01-01T00:00:05Z');
  const mixed = toApplication('x', [
    withStatus('1', 'UP', '2026-01-01T00:00:01Z'),
    withStatus('2', 'DOWN', '2026-01-01T00:00:09Z'),
    withStatus('3', 'OFFLINE', '2026-01-01T00:00:07Z'),
  ]);
  assert.is(mixed.statusTimestamp, '2026-01-01T00:00:07Z');
});

test.run();
