import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeActuator } from '../../support/fake-actuator.js';
import { proxyKernel, rawRequest, rawStatus, registerDetected } from './helpers.js';

/**
 * Paths after `/actuator/` that try to leave the endpoint or reach another host: dot segments in
 * every spelling (`..`, `%2e`, `%2E`, `%252e`, overlong UTF-8, `%u002e`, Tomcat's `..;`), slashes
 * and backslashes raw and encoded (`%2f`, `%5c`, double-encoded), double slashes, absolute URLs
 * (`http://`, `//`, `http:%2f%2f`, `\\`), `@` userinfo tricks, NUL, CR/LF and other control
 * bytes, and overlong paths. `evil` is the address of a live server that must never be called.
 */
function corpus(evil: string): string[] {
  return [
    // dot segments
    'health/../env',
    'health/../../secret',
    'health/%2e%2e/env',
    'health/%2E%2E/env',
    'health/.%2e/env',
    'health/%2e./env',
    'health/%2E./%2E./secret',
    'health/./env',
    'health/%2e/env',
    'health/a/../../secret',
    'health/a/%2e%2e/%2e%2e/secret',
    '..',
    '.',
    '%2e%2e/%2e%2e/secret',
    '%2E%2E',
    'health/..;/env',
    'health/.;/env',
    'health/..;jsessionid=1/secret',
    'health/%2e%2e;x=1/env',
    'health/..%3b/env',
    'health/%252e%252e/env',
    'health/%252E%252E/secret',
    'health/%25252e%25252e/secret',
    'health/%%32%65%%32%65/env',
    'health/%c0%ae%c0%ae/env',
    'health/%e0%80%ae%e0%80%ae/env',
    'health/%u002e%u002e/env',
    'health/%ef%bc%8e%ef%bc%8e/env',
    // slashes and backslashes, raw and encoded
    'health/..%2fenv',
    'health/..%2Fenv',
    'health/%2f%2fevil.example',
    'health/%2F..%2F..%2Fsecret',
    'health/%252f..%252fsecret',
    'health/..%5cenv',
    'health/..%5Cenv',
    'health/%5c..%5csecret',
    'health/%255c..%255csecret',
    'health/..\\env',
    'health\\..\\secret',
    // double slashes and absolute URLs aimed at the evil server
    'health//evil.example/x',
    `health//${evil}/x`,
    `//${evil}/x`,
    `///${evil}/x`,
    `http://${evil}/x`,
    `https://${evil}/x`,
    `health/http://${evil}/x`,
    `http:%2f%2f${evil}/x`,
    `http:%2F%2F${evil}/x`,
    `%2f%2f${evil}/x`,
    `health%2f%2f${evil}/x`,
    `health/%252f%252f${evil}/x`,
    `\\\\${evil}\\x`,
    `%5c%5c${evil}%5cx`,
    `https:\\\\${evil}`,
    `health/..%2f..%2f%2f${evil}/x`,
    // userinfo and authority tricks
    `@${evil}/x`,
    `health@${evil}/x`,
    `health/@${evil}`,
    `health/x@${evil}/x`,
    `health/:@${evil}:80/x`,
    `health%40${evil}/x`,
    `:@${evil}`,
    `health/..%2f@${evil}`,
    // NUL and control bytes (header injection upstream)
    'health/%00/x',
    'health/..%00/env',
    'health/%00',
    `health/%0d%0aHost:%20${evil}`,
    'health/x%0aX-Injected:%201',
    'health/%09/x',
    'health/%7f',
    // queries and fragments do not change the path
    'health?/../../secret',
    `health?x=http://${evil}/`,
    'health/x?y=/../../secret',
    'health/%23/../secret',
    // malformed encoding
    'health/%',
    'health/%zz',
    'health/%2',
    // overlong: deep, long and very long (past Node's header limit)
    `health/${'a'.repeat(8000)}`,
    `health/${'a/'.repeat(3000)}x`,
    `health/${'../'.repeat(2000)}env`,
    `health/${'%2e%2e/'.repeat(1200)}env`,
    `health/${'x'.repeat(70_000)}`,
  ];
}

/** True when `path` is at or under `/actuator/<an endpoint>`, with no dot segment, slash, backslash or control byte in any decoding. */
function insideEndpoint(path: string, endpoints: readonly string[]): boolean {
  const segments = path.split('/').slice(1);
  for (const segment of segments) {
    let decoded = segment;
    try {
      decoded = decodeURIComponent(decodeURIComponent(segment));
    } catch {
      // still checked as-is below
    }
    const bare = decoded.split(';')[0];
    if (bare === '..' || bare === '.' || decoded.includes('/') || decoded.includes('\\') || /[\u0000-\u001f\u007f]/.test(decoded)) return false;
  }
  return segments[0] === 'actuator' && endpoints.includes(segments[1] ?? '') && !path.includes('//');
}

const STATUSES = [200, 400, 404, 431];

for (const form of ['instance', 'application'] as const) {
  test(`the traversal corpus (${form} proxy) never reaches a path outside the endpoint, nor another host`, async () => {
    const fake = await FakeActuator.start();
    const evil = await FakeActuator.start();
    const tk = await proxyKernel();
    const endpoints = ['health', 'env', 'info'];
    try {
      const id = await registerDetected(tk, fake, { endpoints, name: 'shop' });
      const base = form === 'instance' ? `/instances/${id}/actuator` : '/applications/shop/actuator';
      let forwarded = 0;
      for (const nasty of corpus(`127.0.0.1:${evil.port}`)) {
        const before = fake.requests.length;
        const status = await rawStatus(tk.url, `${base}/${nasty}`);
        const label = nasty.length > 80 ? `${nasty.slice(0, 80)}… (${nasty.length} chars)` : nasty;
        assert.ok(STATUSES.includes(status), `${label}: status ${status}`);
        for (const seen of fake.requests.slice(before)) {
          assert.ok(insideEndpoint(seen.path, endpoints), `${label}: the instance got ${seen.url.slice(0, 200)}`);
          forwarded++;
        }
      }
      assert.is(evil.requests.length, 0, 'the evil server was called');
      // The corpus is not all refusals: harmless-looking ones do reach the instance, inside the endpoint.
      assert.ok(forwarded > 0);
    } finally {
      await tk.stop();
      await fake.close();
      await evil.close();
    }
  });
}

test('absolute-form request targets and a forged Host cannot redirect the call', async () => {
  const fake = await FakeActuator.start();
  const evil = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/env', { json: { ok: true } });
    // `GET http://evil/instances/...`: the host in the request target is not where the call goes.
    const absolute = await rawStatus(tk.url, `http://127.0.0.1:${evil.port}/instances/${id}/actuator/env`);
    assert.ok([200, 400, 404].includes(absolute), `status ${absolute}`);
    const forged = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/env`, { host: `127.0.0.1:${evil.port}`, 'x-forwarded-host': `127.0.0.1:${evil.port}` });
    assert.is(forged.status, 200);
    assert.equal(JSON.parse(forged.body.toString()), { ok: true });
    assert.is(fake.requestsTo('/env').at(-1)?.headers.host, `127.0.0.1:${fake.port}`);
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
    const id = await registerDetected(tk, fake);
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
    const id = await registerDetected(tk, fake);
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
