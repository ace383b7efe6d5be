import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceResponse } from '../../../core/kits/services/index.js';
import { InstanceCallError, toCallError } from '../../../plugins/monitor/call-error.js';
import { monitorSchema } from '../../../plugins/monitor/config-schema.js';
import { statusFromError, statusFromResponse } from '../../../plugins/monitor/health-mapping.js';
import { isJsonType, parseJsonObject } from '../../../plugins/monitor/media-type.js';

const V3 = 'application/vnd.spring-boot.actuator.v3+json';

function response(status: number, body: unknown, contentType = 'application/json'): InstanceResponse {
  const raw = body === undefined ? Buffer.alloc(0) : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  return { status, headers: { 'content-type': contentType }, contentType, body: raw };
}

test('2xx JSON with a status: that status, upper-cased, details from components', () => {
  const info = statusFromResponse(response(200, { status: 'up', components: { db: { status: 'UP' } } }, V3));
  assert.equal(info, { status: 'UP', details: { db: { status: 'UP' } } });
});

test('details win over components; neither gives {}', () => {
  assert.equal(statusFromResponse(response(200, { status: 'UP', details: { a: 1 }, components: { b: 2 } })).details, { a: 1 });
  assert.equal(statusFromResponse(response(200, { status: 'UP' })).details, {});
});

test('the body status wins on a non-2xx code', () => {
  const info = statusFromResponse(response(503, { status: 'OUT_OF_SERVICE', components: { x: {} } }, 'application/json;charset=UTF-8'));
  assert.equal(info, { status: 'OUT_OF_SERVICE', details: { x: {} } });
});

test('2xx without a body or without JSON is UP with no details', () => {
  assert.equal(statusFromResponse(response(200, undefined, '')), { status: 'UP', details: {} });
  assert.equal(statusFromResponse(response(204, 'fine', 'text/plain')), { status: 'UP', details: {} });
  assert.equal(statusFromResponse(response(200, { healthy: true })), { status: 'UP', details: {} });
});

test('non-2xx JSON without status: DOWN with code, reason and the body (or its details) merged', () => {
  assert.equal(statusFromResponse(response(503, { foo: 'bar' })), { status: 'DOWN', details: { status: 503, error: 'Service Unavailable', foo: 'bar' } });
  assert.equal(statusFromResponse(response(500, { details: { disk: 'full' }, other: 1 }, V3)), { status: 'DOWN', details: { status: 500, error: 'Internal Server Error', disk: 'full' } });
});

test('non-2xx text, empty or malformed bodies: DOWN with code and reason only', () => {
  const expected = { status: 'DOWN', details: { status: 503, error: 'Service Unavailable' } };
  assert.equal(statusFromResponse(response(503, 'service unavailable', 'text/plain')), expected);
  assert.equal(statusFromResponse(response(503, undefined, '')), expected);
  assert.equal(statusFromResponse(response(503, '{not json')), expected);
  assert.equal(statusFromResponse(response(599, undefined)).details, { status: 599, error: 'Unknown' });
});

test('a JSON body under a foreign media type is not read', () => {
  assert.equal(statusFromResponse(response(503, { status: 'UP' }, 'text/plain')).status, 'DOWN');
});

test('a call error is OFFLINE with message and exception', () => {
  assert.equal(statusFromError(new InstanceCallError('ETIMEDOUT', 'too slow')), { status: 'OFFLINE', details: { message: 'too slow', exception: 'ETIMEDOUT' } });
  assert.equal(statusFromError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })).details, { message: 'connect ECONNREFUSED', exception: 'ECONNREFUSED' });
});

test('toCallError: undici time-outs, aggregate errors and strangers', () => {
  assert.is(toCallError(Object.assign(new Error('h'), { code: 'UND_ERR_HEADERS_TIMEOUT' })).code, 'ETIMEDOUT');
  const aggregate = Object.assign(new AggregateError([Object.assign(new Error('connect ECONNREFUSED ::1'), { code: 'ECONNREFUSED' })], ''), {});
  const mapped = toCallError(aggregate);
  assert.is(mapped.code, 'ECONNREFUSED');
  assert.is(mapped.message, 'connect ECONNREFUSED ::1');
  assert.is(toCallError('weird').code, 'ECALLFAILED');
  assert.is(toCallError('weird').message, 'ECALLFAILED');
});

test('media types and JSON objects', () => {
  assert.ok(isJsonType('application/json'));
  assert.ok(isJsonType('Application/JSON; charset=utf-8'));
  assert.ok(isJsonType('application/vnd.spring-boot.actuator.v2+json'));
  assert.not.ok(isJsonType('text/plain'));
  assert.not.ok(isJsonType(''));
  assert.is(parseJsonObject(Buffer.from('[1]')), undefined);
  assert.equal(parseJsonObject(Buffer.from('{"a":1}')), { a: 1 });
});

test('config: defaults', async () => {
  const config = await monitorSchema.validate(undefined);
  assert.is(config['status-interval'], 10_000);
  assert.is(config['info-interval'], 60_000);
  assert.is(config['default-timeout'], 10_000);
  assert.is(config['default-retries'], 0);
  assert.is(config['status-max-backoff'], 60_000);
  assert.is(config['info-max-backoff'], 600_000);
  assert.is(config['status-change-detection'], 'status');
  assert.is(config['failures-before-down'], 1);
  assert.is(config['successes-before-up'], 1);
  assert.is(config['detection-interval'], 300_000);
  assert.equal(config.timeout, {});
  assert.equal(config.retries, {});
  assert.is(config['max-concurrent-checks'], 256);
  assert.is(config['max-concurrent-follow-ups'], 16);
  assert.is(config['max-connections-per-origin'], 8);
});

test('config: the conformance kit values and per-endpoint maps validate', async () => {
  const config = await monitorSchema.validate({
    'status-interval': '300ms', 'status-lifetime': '100ms', 'info-interval': '300ms', 'info-lifetime': '100ms',
    'default-timeout': '1s', 'default-retries': 0, timeout: { health: '2s', info: 500 }, retries: { health: 2 },
    'status-change-detection': 'full',
  });
  assert.is(config['status-interval'], 300);
  assert.is(config['default-timeout'], 1000);
  assert.equal(config.timeout, { health: 2000, info: 500 });
  assert.equal(config.retries, { health: 2 });
  assert.is(config['status-change-detection'], 'full');
});

test('config: unknown keys, bad durations and bad enums are rejected', async () => {
  for (const bad of [{ 'status-intervall': '1s' }, { 'status-interval': 'soon' }, { 'status-change-detection': 'details' }, { timeout: { health: 'x' } }, { retries: { health: -1 } }]) {
    await monitorSchema.validate(bad).then(
      () => assert.unreachable(`accepted ${JSON.stringify(bad)}`),
      (error: Error) => assert.ok(error.message.length > 0),
    );
  }
});

test.run();
