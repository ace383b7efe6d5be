import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeActuator } from '../../support/fake-actuator.js';
import { proxyKernel, rawRequest, rawStatus, registerDetected } from './helpers.js';

/**
 * Paths after `/actuator/` that try to leave the endpoint: dot segments in every spelling,
 * encoded slashes and backslashes, double slashes, absolute URLs, Tomcat's `..;`, double and
 * overlong encodings, NUL bytes. Each must be refused or stay under the endpoint's prefix.
 */
const CORPUS = [
  'health/../env',
  'health/../../secret',
  'health/%2e%2e/env',
  'health/%2E%2E/env',
  'health/.%2e/env',
  'health/%2e./env',
  'health/%2E./%2E./secret',
  'health/./env',
  'health/%2e/env',
  'health/..%2fenv',
  'health/%2f%2fevil.example',
  'health/%2F..%2F..%2Fsecret',
  'health/..%5cenv',
  'health/%5c..%5csecret',
  'health/..\\env',
  'health\\..\\secret',
  'health//evil.example/x',
  'health/http://evil.example/x',
  '//evil.example/x',
  'http://evil.example/x',
  'http:%2f%2fevil.example/x',
  'health/..;/env',
  'health/..;jsessionid=1/secret',
  'health/%2e%2e;x=1/env',
  'health/..%3b/env',
  'health/%252e%252e/env',
  'health/%252f..%252fsecret',
  'health/%c0%ae%c0%ae/env',
  'health/%u002e%u002e/env',
  'health/%00/x',
  'health/..%00/env',
  'health/a/../../secret',
  'health/a/%2e%2e/%2e%2e/secret',
  'health/%',
  'health/%zz',
  '..',
  '%2e%2e/%2e%2e/secret',
  '.',
  'health/@evil.example',
  'health/:@evil.example:80/x',
  'health?/../../secret',
  'health/x?y=/../../secret',
  'health/%23/../secret',
];

/** True when `path` is at or under `/actuator/<an endpoint>` with no dot segment in any spelling. */
function insideEndpoint(path: string, endpoints: readonly string[]): boolean {
  const segments = path.split('/').slice(1);
  for (const segment of segments) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(decodeURIComponent(segment));
    } catch {
      // still checked as-is below
    }
    if (decoded.split(';')[0] === '..' || decoded.split(';')[0] === '.' || decoded.includes('/') || decoded.includes('\\')) return false;
  }
  return segments[0] === 'actuator' && endpoints.includes(segments[1] ?? '') && !path.includes('//');
}

test('the traversal corpus never reaches a path outside the endpoint, nor another host', async () => {
  const fake = await FakeActuator.start();
  const evil = await FakeActuator.start();
  const tk = await proxyKernel();
  const endpoints = ['health', 'env', 'info'];
  try {
    const id = registerDetected(tk, fake, { endpoints });
    fake.on('GET', '/health', { json: { status: 'UP' } });
    for (const nasty of CORPUS) {
      const status = await rawStatus(tk.url, `/instances/${id}/actuator/${nasty}`);
      assert.ok(status >= 200 && status < 500, `${nasty}: status ${status}`);
      if (status >= 400) continue;
      const seen = fake.requests.at(-1);
      assert.ok(seen && insideEndpoint(seen.path, endpoints), `${nasty}: the instance got ${seen?.url}`);
    }
    for (const request of fake.requests) {
      assert.ok(insideEndpoint(request.path, endpoints), `the instance got ${request.url}`);
    }
    assert.is(evil.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
    await evil.close();
  }
});

test('refusals are 400 JSON naming the problem', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = registerDetected(tk, fake);
    const cases: [string, RegExp][] = [
      ['health/%2e%2e/env', /dot segment/],
      ['health/..%2fenv', /encoded slash/],
      ['health/..%5cenv', /encoded backslash/],
      ['health/..\\env', /backslash/],
      ['health//evil', /double slash/],
      ['health/%zz', /malformed/],
      ['health/%c0%ae', /malformed/],
      ['health/%00', /control character/],
      ['health/%252e%252e', /double percent-encoding/],
      ['health/..;/env', /dot segment/],
    ];
    for (const [nasty, problem] of cases) {
      const res = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/${nasty}`);
      assert.is(res.status, 400, nasty);
      const body = JSON.parse(res.body.toString()) as { status: number; message: string };
      assert.is(body.status, 400);
      assert.match(body.message, problem, nasty);
    }
    assert.is(fake.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a trailing slash and harmless characters stay under the endpoint', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = registerDetected(tk, fake);
    fake.on('GET', '/env/', { json: { slash: true } });
    fake.on('GET', '/env/a%7Cb%22c', { json: { encoded: true } });
    assert.equal(JSON.parse((await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/env/`)).body.toString()), { slash: true });
    // Characters Node accepts raw in a request line but URLs must not carry raw are encoded.
    const encoded = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/env/a|b"c`);
    assert.equal(JSON.parse(encoded.body.toString()), { encoded: true });
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
