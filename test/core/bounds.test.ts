import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_STATUS_LENGTH, TRUNCATED_KEY, boundDraft, boundObject, boundStatus } from '../../core/store/bounds.js';
import { changeStatusCommand } from '../../core/store/commands.js';
import { emptyInstance } from '../../core/store/instance.js';
import { statusInfo } from '../../core/store/status.js';

test('a status over 64 characters is cut and the cut is said in the details; a short one is the same object', () => {
  const short = { status: 'UP', details: {} };
  assert.is(boundStatus(short), short);
  const long = boundStatus({ status: 'X'.repeat(100), details: { a: 1 } });
  assert.is(long.status, 'X'.repeat(MAX_STATUS_LENGTH));
  assert.equal(long.details, { a: 1, [TRUNCATED_KEY]: 'status of 100 characters cut to 64' });
});

test('an object over the limit keeps whole entries in order while they fit, and names what it left out', () => {
  const small = { a: 1 };
  assert.is(boundObject(small, 1024, 'info'), small);
  const value = { db: { status: 'UP' }, big: 'x'.repeat(5000), disk: { free: 1 }, ...Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'y'.repeat(200)])) };
  const cut = boundObject(value, 2048, 'info');
  assert.ok(Buffer.byteLength(JSON.stringify(cut)) <= 2048);
  assert.equal(cut.db, { status: 'UP' });
  assert.equal(cut.disk, { free: 1 });
  assert.is(cut.big, undefined);
  assert.match(String(cut[TRUNCATED_KEY]), /^info of \d+ bytes cut to the 2048-byte limit; left out: big, k\d+/);
  assert.match(String(cut[TRUNCATED_KEY]), /and \d+ more$/);
});

test('drafts: status details and info are bounded, other events pass as they are', () => {
  const registered = { type: 'DEREGISTERED' } as const;
  assert.is(boundDraft(registered, 1024), registered);
  const info = boundDraft({ type: 'INFO_CHANGED', info: { blob: 'z'.repeat(4000) } }, 1024);
  assert.ok(info.type === 'INFO_CHANGED' && info.info.blob === undefined);
});

test('a long status reported again is no change: the command compares the cut form', () => {
  const instance = { ...emptyInstance('i'), registered: true, statusInfo: boundStatus({ status: 'Y'.repeat(80), details: {} }) };
  assert.is(changeStatusCommand({ status: 'Y'.repeat(80), details: {} })(instance), null);
  assert.ok(changeStatusCommand({ status: 'Y'.repeat(81), details: {} })(instance) === null, 'the same first 64 characters are the same status');
});

test('a status reaches the store without control characters, whoever reports it; the cut form is compared', () => {
  assert.equal(boundStatus({ status: 'DOWN\r\nBCC: x@example.com\u0085\u2029', details: { a: 1 } }), { status: 'DOWNBCC: x@example.com', details: { a: 1 } });
  assert.is(statusInfo('up\n').status, 'UP');
  const instance = { ...emptyInstance('i'), registered: true, statusInfo: statusInfo('DOWN') };
  assert.is(changeStatusCommand({ status: 'DOWN\r\n', details: {} })(instance), null, 'DOWN with a line break is DOWN');
  const draft = boundDraft({ type: 'STATUS_CHANGED', statusInfo: { status: 'UP\u0000', details: {} } }, 1024);
  assert.ok(draft.type === 'STATUS_CHANGED' && draft.statusInfo.status === 'UP');
});

test.run();
