import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { instanceIdOf } from '../../core/store/instance-id.js';
import { parseRegistration } from '../../core/store/registration.js';

function ok(body: unknown) {
  const result = parseRegistration(body, 'http-api');
  if (!result.ok) throw new Error(`expected a valid registration, got ${result.problems.join('; ')}`);
  return result.registration;
}

function problems(body: unknown): readonly string[] {
  const result = parseRegistration(body, 'http-api');
  if (result.ok) throw new Error('expected problems');
  return result.problems;
}

test('instance id: first 12 hex of SHA-1(healthUrl), as SBA', () => {
  assert.is(instanceIdOf('http://localhost:8080/health'), '5a7955419f05');
  assert.is(instanceIdOf('http://localhost:8080/actuator/health'), 'a973ff14be49');
});

test('the held registration of a heartbeat is looked up by its health URL; a URL it does not hold is checked again', () => {
  const held = ok({ name: 'a', healthUrl: 'http://h/health', managementUrl: 'http://h/mgmt', serviceUrl: 'http://h/' });
  const asked: string[] = [];
  const heldOf = (healthUrl: string) => {
    asked.push(healthUrl);
    return healthUrl === held.healthUrl ? held : undefined;
  };
  const again = parseRegistration({ name: 'a', healthUrl: 'http://h/health', managementUrl: 'http://h/mgmt', serviceUrl: 'http://h/' }, 'http-api', heldOf);
  assert.equal(again, { ok: true, registration: held });
  assert.equal(asked, ['http://h/health']);
  const changed = parseRegistration({ name: 'a', healthUrl: 'http://h/health', managementUrl: 'http:h/mgmt', serviceUrl: 'http://h/' }, 'http-api', heldOf);
  assert.equal(changed, { ok: false, problems: ["'managementUrl' is not valid: \"http:h/mgmt\" is not an absolute http(s) URL (http://host/... or https://host/...)"] });
  assert.is(parseRegistration({ name: 'a', healthUrl: 'x'.repeat(5000) }, 'http-api', heldOf).ok, false);
  assert.is(asked.length, 2, 'an over-long health URL is not looked up');
});

test('instance id: the answer for one URL is the same asked twice or in between others', () => {
  const a = instanceIdOf('http://localhost:8080/health');
  assert.is(instanceIdOf('http://localhost:8080/health'), a);
  assert.is(instanceIdOf('http://localhost:8080/actuator/health'), 'a973ff14be49');
  assert.is(instanceIdOf('http://localhost:8080/health'), '5a7955419f05');
});

test('camelCase and snake_case fields; source is set by the caller', () => {
  const r = ok({ name: 'a', health_url: 'http://h/health', management_url: 'http://h/mgmt', service_url: 'http://h/', source: 'lies' });
  assert.equal(r, { name: 'a', healthUrl: 'http://h/health', managementUrl: 'http://h/mgmt', serviceUrl: 'http://h/', source: 'http-api', metadata: {} });
  assert.is(ok({ name: 'a', healthUrl: 'http://h/health', health_url: 'http://other' }).healthUrl, 'http://h/health');
});

test('legacy url form: management = url, health = url + /health, no service URL', () => {
  const r = ok({ name: 'test', url: 'https://test//', serviceUrl: 'http://ignored' });
  assert.is(r.managementUrl, 'https://test//');
  assert.is(r.healthUrl, 'https://test/health');
  assert.is(r.serviceUrl, null);
});

test('every problem is reported and names its field', () => {
  assert.equal(problems({}), ["'name' must not be empty", "'healthUrl' must not be empty"]);
  assert.equal(problems({ name: '  ', healthUrl: '/actuator/health' }), [
    "'name' must not be empty",
    `'healthUrl' is not valid: "/actuator/health" is not an absolute http(s) URL (http://host/... or https://host/...)`,
  ]);
  assert.match(problems({ name: 5, healthUrl: 'http://h' })[0]!, "'name' must be a string, got a number");
  assert.match(problems({ name: 'a', healthUrl: 'http://h', managementUrl: 'http//missing-colon' })[0]!, 'managementUrl');
  assert.match(problems({ name: 'a', healthUrl: 'http://h', serviceUrl: 'not a url' })[0]!, 'serviceUrl');
  assert.match(problems({ name: 'a', healthUrl: 'file:///etc/passwd' })[0]!, 'healthUrl');
  assert.match(problems({ name: 'a', healthUrl: 'http://h/a b' })[0]!, 'healthUrl');
  assert.match(problems({ name: 'a', healthUrl: 42 })[0]!, "'healthUrl' must be a string");
  assert.match(problems({ name: 'a\u0000b', healthUrl: 'http://h' })[0]!, 'control characters');
  assert.match(problems({ name: 'x'.repeat(513), healthUrl: 'http://h' })[0]!, 'at most 512');
  assert.match(problems({ name: 'a', healthUrl: `http://h/${'x'.repeat(5000)}` })[0]!, 'at most 4096');
  assert.equal(problems([{ name: 'a' }]), ['the registration must be a JSON object']);
  assert.equal(problems('text'), ['the registration must be a JSON object']);
  assert.equal(problems(null), ['the registration must be a JSON object']);
});

test('empty management and service URLs count as absent', () => {
  const r = ok({ name: 'a', healthUrl: 'http://h/health', managementUrl: '', serviceUrl: null });
  assert.is(r.managementUrl, null);
  assert.is(r.serviceUrl, null);
});

test('metadata: strings kept, numbers and booleans as text, nested objects flattened, nulls dropped, arrays refused', () => {
  const r = ok({ name: 'a', healthUrl: 'http://h', metadata: { s: 'x', n: 1.5, b: true, z: null, tags: { env: 'prod', deep: { k: 'v' } } } });
  assert.equal(r.metadata, { s: 'x', n: '1.5', b: 'true', 'tags.env': 'prod', 'tags.deep.k': 'v' });
  assert.match(problems({ name: 'a', healthUrl: 'http://h', metadata: { list: [1] } })[0]!, "'metadata.list'");
  assert.match(problems({ name: 'a', healthUrl: 'http://h', metadata: 'x' })[0]!, "'metadata' must be an object");
});

test('metadata service-url overrides a given serviceUrl when it is an absolute http(s) URL', () => {
  assert.is(ok({ name: 'a', healthUrl: 'http://h', serviceUrl: 'http://s/', metadata: { 'service-url': 'http://real/' } }).serviceUrl, 'http://real/');
  assert.is(ok({ name: 'a', healthUrl: 'http://h', serviceUrl: 'http://s/', metadata: { 'service-url': '::bad' } }).serviceUrl, 'http://s/');
  assert.is(ok({ name: 'a', healthUrl: 'http://h', metadata: { 'service-url': 'http://real/' } }).serviceUrl, null);
});

test.run();
