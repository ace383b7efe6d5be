import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { instanceIdOf, type Logger } from '../../../core/plugin-api.js';
import type { NewEvent } from '../../../core/event-log.js';
import { checkEvent, checkOutboxItem, checkSnapshot } from '../../../plugins/cluster-redis/record-check.js';
import { RecordCodec } from '../../../plugins/cluster-redis/record-codec.js';
import { RecordSeal } from '../../../plugins/cluster-redis/record-seal.js';

const SECRET = 'sixteen+ characters of secret';
const healthUrl = 'http://10.0.0.5:8081/actuator/health';
const id = instanceIdOf(healthUrl);
const registration = { name: 'app', healthUrl, managementUrl: 'http://10.0.0.5:8081/actuator', serviceUrl: null, source: 'http-api', metadata: { 'user.password': 'pw' } };
const registered = { type: 'REGISTERED', instance: id, version: 0, timestamp: '2026-01-01T00:00:00.000Z', registration } as const;
const snapshot = {
  id, version: 3, registration, registered: true, statusInfo: { status: 'UP', details: { disk: { status: 'UP' } } }, statusTimestamp: '2026-01-01T00:00:01.000Z',
  info: { app: 'x' }, endpoints: [{ id: 'info', url: 'http://10.0.0.5:8081/actuator/info' }], buildVersion: '1.2', tags: { env: 'prod' },
};

function recordingLog(): { log: Logger; lines: string[] } {
  const lines: string[] = [];
  const log: Logger = {
    error: (message) => void lines.push(`error ${message}`),
    warn: (message) => void lines.push(`warn ${message}`),
    info: (message) => void lines.push(`info ${message}`),
    debug: (message) => void lines.push(`debug ${message}`),
    child: () => log,
  };
  return { log, lines };
}

test('seal: AES-256-GCM round trip; the text holds no plaintext, a fresh IV each time, and the key id', () => {
  const seal = new RecordSeal(SECRET);
  const json = JSON.stringify(registered);
  const one = seal.seal('event', id, json);
  const two = seal.seal('event', id, json);
  assert.match(one, new RegExp(`^vigil-sealed:v1:${seal.keyId}:[A-Za-z0-9_-]+$`));
  assert.is.not(one, two, 'a random IV per record');
  assert.not.ok(one.includes('pw') && one.includes('user.password'));
  assert.equal(seal.open('event', id, one), { ok: true, json, sealed: true });
  assert.is(new RecordSeal(SECRET).keyId, seal.keyId, 'the same secret gives the same key on every node');
  assert.is.not(new RecordSeal(`${SECRET}!`).keyId, seal.keyId);
});

test('seal: a record moved to another instance or kind, altered, cut, or sealed under another key is refused with why; never a throw', () => {
  const seal = new RecordSeal(SECRET);
  const sealed = seal.seal('event', id, '{"a":1}');
  assert.match(String((seal.open('event', 'other', sealed) as { reason: string }).reason), /does not verify under this node's key/);
  assert.match(String((seal.open('snapshot', id, sealed) as { reason: string }).reason), /does not verify/);
  const flipped = `${sealed.slice(0, -3)}${sealed.at(-3) === 'A' ? 'B' : 'A'}${sealed.slice(-2)}`;
  assert.match(String((seal.open('event', id, flipped) as { reason: string }).reason), /does not verify/);
  assert.match(String((seal.open('event', id, sealed.slice(0, 40)) as { reason: string }).reason), /cut short/);
  assert.match(String((new RecordSeal('another secret, also long').open('event', id, sealed) as { reason: string }).reason), new RegExp(`sealed with another cluster-redis.secret-key \\(key id ${seal.keyId}; this node's is [0-9a-f]{8}\\)`));
  assert.match(String((new RecordSeal(undefined).open('event', id, sealed) as { reason: string }).reason), /this node has no cluster-redis.secret-key/);
  assert.match(String((seal.open('event', id, 'nonsense') as { reason: string }).reason), /neither JSON nor a sealed record/);
});

test('seal: without a secret records stay in clear; records in clear are read with or without one', () => {
  const none = new RecordSeal('');
  assert.not.ok(none.enabled);
  assert.is(none.seal('snapshot', id, '{"x":1}'), '{"x":1}');
  assert.equal(new RecordSeal(SECRET).open('snapshot', id, '{"x":1}'), { ok: true, json: '{"x":1}', sealed: false });
});

test('check: what Vigil writes passes, the fields kept are the registry\'s own', () => {
  const checked = checkEvent({ ...registered, extra: 'dropped' }, id, 7);
  assert.ok(checked.ok);
  assert.equal(checked.ok && { ...checked.value }, { type: 'REGISTERED', instance: id, version: 0, timestamp: registered.timestamp, seq: 7, registration });
  for (const event of [
    { type: 'STATUS_CHANGED', statusInfo: { status: 'DOWN', details: {} } },
    { type: 'ENDPOINTS_DETECTED', endpoints: [{ id: 'env', url: 'env' }] },
    { type: 'INFO_CHANGED', info: {} },
    { type: 'DEREGISTERED' },
  ]) assert.ok(checkEvent({ instance: id, version: 2, timestamp: registered.timestamp, ...event }, id, 9).ok, event.type);
  const held = checkSnapshot(snapshot, id);
  assert.ok(held.ok);
  assert.equal(held.ok && held.value, snapshot);
  assert.ok(checkSnapshot({ ...snapshot, registered: false, registration: null }, id).ok);
});

test('check: the API\'s registration rules, the id its health URL gives, and the registry\'s types', () => {
  const problem = (value: unknown, under = id) => {
    const checked = checkEvent(value, under, 1);
    return checked.ok ? 'accepted' : checked.problem;
  };
  const withRegistration = (changes: Record<string, unknown>) => ({ ...registered, registration: { ...registration, ...changes } });
  assert.match(problem(withRegistration({ managementUrl: 'http:user:pw@host/actuator' })), /would be refused by the API: 'managementUrl' is not valid: "http:user:\*\*\*\*\*\*@host\/actuator"/);
  assert.match(problem(withRegistration({ serviceUrl: 'javascript:alert(1)' })), /'serviceUrl' is not valid/);
  assert.match(problem(withRegistration({ name: 'a\u0000b' })), /'name' must not contain control characters/);
  assert.match(problem(withRegistration({ metadata: { list: [1] } })), /'metadata.list' must be a string/);
  assert.match(problem(withRegistration({ healthUrl: 'http://10.0.0.6/health' })), /its health URL gives another instance id/);
  assert.match(problem(registered, 'someone-else'), /names instance .* but is filed under someone-else/);
  assert.match(problem({ ...registered, version: -1 }), /'version' must be a whole number/);
  assert.match(problem({ ...registered, version: 1.5 }), /'version'/);
  assert.match(problem({ ...registered, timestamp: 'yesterday' }), /'timestamp' must be an ISO-8601 instant/);
  assert.match(problem({ ...registered, type: 'PWNED' }), /is not an event type/);
  assert.match(problem([]), /not a JSON object/);
  assert.match(problem({ instance: id, version: 1, timestamp: registered.timestamp, type: 'STATUS_CHANGED', statusInfo: { status: 5 } }), /'statusInfo'/);
  assert.match(problem({ instance: id, version: 1, timestamp: registered.timestamp, type: 'ENDPOINTS_DETECTED', endpoints: [{ id: '', url: 'x' }] }), /endpoint/);
  assert.match(problem({ instance: id, version: 1, timestamp: registered.timestamp, type: 'INFO_CHANGED', info: 'x' }), /'info' must be an object/);
  const snapshotProblem = (value: unknown) => {
    const checked = checkSnapshot(value, id);
    return checked.ok ? 'accepted' : checked.problem;
  };
  assert.match(snapshotProblem({ ...snapshot, registered: 'yes' }), /'registered'/);
  assert.match(snapshotProblem({ ...snapshot, registration: null }), /a registered instance must have a registration/);
  assert.match(snapshotProblem({ ...snapshot, tags: { a: 1 } }), /'tags'/);
  assert.match(snapshotProblem({ ...snapshot, buildVersion: 3 }), /'buildVersion'/);
  assert.match(snapshotProblem({ ...snapshot, id: 'x' }), /names instance/);
});

test('check: a notification item must say which instance, event and statuses, as the append script writes it', () => {
  const fields = { q: '12', i: id, v: '3', t: 'STATUS_CHANGED', f: 'UP', o: 'DOWN', ts: '2026-01-01T00:00:00.000Z' };
  assert.equal(checkOutboxItem(fields), { ok: true, value: { seq: 12, instance: id, version: 3, type: 'STATUS_CHANGED', timestamp: fields.ts, from: 'UP', to: 'DOWN' } });
  const problem = (changes: Record<string, string | undefined>) => {
    const checked = checkOutboxItem({ ...fields, ...changes } as Record<string, string>);
    return checked.ok ? 'accepted' : checked.problem;
  };
  assert.match(problem({ q: 'x' }), /sequence number/);
  assert.match(problem({ i: '' }), /names no instance/);
  assert.match(problem({ t: 'PAGE_EVERYONE' }), /not an event type/);
  assert.match(problem({ o: undefined }), /statuses before and after/);
  assert.match(problem({ v: '-2' }), /'version'/);
  assert.match(problem({ ts: 'soon' }), /'timestamp'/);
  const { log, lines } = recordingLog();
  assert.is(new RecordCodec(new RecordSeal(undefined), log).readOutboxItem({ ...fields, t: 'X' }, '1-0'), undefined);
  assert.equal(lines, ["warn refused the notification item 1-0 read from Redis: 'X' is not an event type; it is left out"]);
});

test('codec: refusals are logged with what and why, within a budget a minute; a write the cluster would refuse fails at once', () => {
  let now = 0;
  const { log, lines } = recordingLog();
  const codec = new RecordCodec(new RecordSeal(SECRET), log, () => now);
  const text = codec.writeEvent(registered as NewEvent);
  assert.equal((codec.readEvent(text, id, 3, 'the change feed') as { registration?: unknown } | undefined)?.registration, registration);
  assert.equal(lines, []);
  for (let i = 0; i < 25; i += 1) assert.is(codec.readEvent('{"broken"', id, 4 + i, 'the change feed'), undefined);
  assert.is(lines.length, 20);
  assert.is(lines[0], `warn refused the event of ${id} at seq 4 in the change feed read from Redis: it is not valid JSON; it is left out`);
  now = 61_000;
  assert.is(codec.readSnapshot(undefined, id), undefined);
  assert.equal(lines.slice(20), [
    'warn 5 more record(s) read from Redis were refused in the last minute (not logged one by one)',
    `warn refused the snapshot of ${id} read from Redis: it is empty; it is left out`,
  ]);
  assert.is(codec.readEvent(text, undefined, 3, 'the change feed'), undefined);
  assert.match(lines.at(-1)!, /refused an entry of the change feed read from Redis: it lacks its instance id or sequence number/);
  assert.throws(() => codec.writeEvent({ ...registered, registration: { ...registration, healthUrl: 'http:x' } } as NewEvent), /refusing to record an event of .* that no node would accept/);
  // Clear records while sealing: read, and said once a minute.
  assert.ok(codec.readEvent(JSON.stringify(registered), id, 90, 'the change feed'));
  assert.ok(codec.readEvent(JSON.stringify(registered), id, 91, 'the change feed'));
  assert.is(lines.filter((line) => line.includes('is in clear although cluster-redis.secret-key is set')).length, 1);
});

test.run();
