import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FailedSignIns, FAILURE_WINDOW_MS } from '../../../plugins/audit/failed-sign-ins.js';
import { FileSink } from '../../../plugins/audit/file-sink.js';
import { detailOf, sanitizePatterns } from '../../../plugins/audit/detail.js';
import { parseSize } from '../../../plugins/audit/config.js';
import { checkPlugin } from '../../../bin/testing.js';

test('failed sign-ins make one entry a minute per address and user, the next one saying how many it stands for', () => {
  let now = 1_000_000;
  const failures = new FailedSignIns(() => now);
  assert.is(failures.note('10.0.0.1', 'root'), 1);
  assert.is(failures.note('10.0.0.1', 'root'), undefined);
  assert.is(failures.note('10.0.0.1', 'root'), undefined);
  assert.is(failures.note('10.0.0.2', 'root'), 1, 'another address');
  assert.is(failures.note('10.0.0.1', 'alice'), 1, 'another user');
  now += FAILURE_WINDOW_MS - 1;
  assert.is(failures.note('10.0.0.1', 'root'), undefined);
  now += 1;
  assert.is(failures.note('10.0.0.1', 'root'), 4, 'the three counted meanwhile and this one');
  assert.is(failures.note('10.0.0.1', 'root'), undefined);
});

test('failed sign-ins from a flood of addresses are remembered for a bounded number of pairs', () => {
  const failures = new FailedSignIns(() => 0);
  for (let i = 0; i < 10_001; i += 1) failures.note(`10.${i >> 16}.${(i >> 8) & 255}.${i & 255}`, 'root');
  // The oldest pair was forgotten, so it counts as new.
  assert.is(failures.note('10.0.0.0', 'root'), 1);
  assert.is(failures.note('10.0.39.16', 'root'), undefined);
});

test('the audit file takes one JSON line per entry and rotates past max-file-size, keeping max-files', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-audit-'));
  try {
    const path = join(dir, 'audit.log');
    const sink = new FileSink(path, 1024, 2);
    const line = (n: number) => ({ id: n, pad: 'x'.repeat(400) });
    // Each line is ~420 bytes: two fit in 1 KiB, the third starts a new file.
    await Promise.all([1, 2, 3, 4, 5, 6, 7].map((n) => sink.write(line(n))));
    await sink.close();
    const files = (await readdir(dir)).sort();
    assert.equal(files, ['audit.log', 'audit.log.1', 'audit.log.2']);
    const ids = async (file: string) => (await readFile(join(dir, file), 'utf8')).trim().split('\n').map((text) => (JSON.parse(text) as { id: number }).id);
    assert.equal(await ids('audit.log'), [7]);
    assert.equal(await ids('audit.log.1'), [5, 6]);
    assert.equal(await ids('audit.log.2'), [3, 4]);
    // A new sink continues the file it finds, and rotates it when full.
    const again = new FileSink(path, 1024, 2);
    await again.write(line(8));
    await again.write(line(9));
    await again.close();
    assert.equal(await ids('audit.log'), [9]);
    assert.equal(await ids('audit.log.1'), [7, 8]);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a write to an audit file that cannot be opened rejects, and the next one tries again', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-audit-'));
  try {
    const sink = new FileSink(join(dir, 'missing', 'audit.log'), 1024 * 1024, 5);
    await sink.write({ id: 1 }).then(() => assert.unreachable('written'), (error: unknown) => assert.match(String(error), 'ENOENT'));
    await (await import('node:fs/promises')).mkdir(join(dir, 'missing'));
    await sink.write({ id: 2 });
    await sink.close();
    assert.is(await readFile(join(dir, 'missing', 'audit.log'), 'utf8'), '{"id":2}\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a proxied body is kept as JSON with secrets masked; anything else is only described', () => {
  const sanitize = sanitizePatterns(['.*password$', '.*secret$', '.*token.*']);
  assert.equal(detailOf('{"configuredLevel":"DEBUG"}', 27, sanitize), { configuredLevel: 'DEBUG' });
  assert.equal(detailOf('[{"apiToken":"t","ok":[1,{"dbPassword":"p"}]}]', 40, sanitize), [{ apiToken: '******', ok: [1, { dbPassword: '******' }] }]);
  assert.equal(detailOf('{"name":"client.secret","value":"s"}', 36, sanitize), { name: 'client.secret', value: '******' });
  assert.equal(detailOf('password=hunter2', 16, sanitize), { body: 'not kept (not JSON, 16 bytes)' });
  assert.equal(detailOf(undefined, 5000, sanitize), { body: 'not kept (5000 bytes, over 1024)' });
  assert.is(detailOf(undefined, 0, sanitize), null);
});

test('the audit section: defaults, sizes with units, and clear errors', async () => {
  assert.is(parseSize('100MiB'), 100 * 1024 * 1024);
  assert.is(parseSize('2 KiB'), 2048);
  assert.is(parseSize('12 parsecs'), undefined);
  assert.equal(await checkPlugin('audit', { audit: { 'max-entries': 10, file: '/var/log/vigil/audit.log', 'max-file-size': '1MiB', 'max-files': 3, 'include-registrations': true } }), []);
  const problems = await checkPlugin('audit', { audit: { 'max-entries': 0, 'max-file-size': '10 bytes', colour: 'red' } });
  assert.ok(problems.some((p) => p.includes('max-entries')), problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('max-file-size')), problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('colour')), problems.join('\n'));
});

test.run();
