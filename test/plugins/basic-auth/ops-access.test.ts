import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capture } from '../../hardening/support/capture.js';
import { ADMIN, basic, discoveryConfig, securityConfig, startFullKernel, type Route } from '../../hardening/support/full-kernel.js';
import { call } from '../../support/http.js';
import { FakeActuator } from '../../support/fake-actuator.js';

const METRICS_TOKEN = 'metrics-only-3b9d27e1';
const PROBES = ['/health/liveness', '/health/readiness'];
const METRICS_READS = ['/metrics', '/prometheus/sd', ...PROBES];

/** The full kernel's security config plus a metrics-role token and anonymous probes. */
function opsConfig(contextPath: string): Record<string, unknown> {
  const auth = securityConfig()['basic-auth'] as { users: unknown[]; tokens: unknown[] };
  return {
    'context-path': contextPath,
    'basic-auth': { ...auth, 'anonymous-probes': true, tokens: [...auth.tokens, { name: 'prometheus', token: METRICS_TOKEN, role: 'metrics' }] },
  };
}

function distinct(routes: readonly Route[]): Route[] {
  return [...new Map(routes.map((route) => [`${route.method} ${route.path}`, route])).values()];
}

/**
 * Over the whole router table (so a route added later is swept too): without credentials only
 * GET/HEAD of exactly the two probes pass; a metrics token reads exactly /metrics,
 * /prometheus/sd and the probes and is refused everywhere else.
 */
for (const contextPath of ['', '/admin']) {
  test(`anonymous probes and the metrics role open exactly their paths (context path "${contextPath}")`, async () => {
    const full = await startFullKernel(opsConfig(contextPath));
    const fake = await FakeActuator.start();
    try {
      const registered = await call('POST', `${full.tk.url}/instances`, { json: fake.registration('shop'), headers: { authorization: basic(ADMIN.username, ADMIN.password) } });
      const id = (registered.json as { id: string }).id;
      const routes = distinct(full.routes);
      assert.ok(routes.length >= 40, `${routes.length} routes`);
      let requests = 0;
      for (const route of routes) {
        const below = route.path.slice(contextPath.length) || '/';
        const path = route.path.replace(':id', id).replace(':name', 'shop').replace(/\*$/, 'env');
        const read = route.method === 'GET' || route.method === 'HEAD';
        const body = ['POST', 'PUT', 'PATCH'].includes(route.method) ? '{}' : undefined;
        const send = (headers: Record<string, string>) => {
          requests += 1;
          return capture(full.port, { method: route.method, path, headers: { accept: 'application/json', 'content-type': 'application/json', ...headers }, ...(body ? { body } : {}) });
        };
        const anonymous = await send({});
        if (read && PROBES.includes(below)) assert.is(anonymous.status, 200, `anonymous ${route.method} ${path}`);
        else assert.is(anonymous.status, 401, `anonymous ${route.method} ${path}`);
        const metrics = await send({ authorization: `Bearer ${METRICS_TOKEN}` });
        if (read && METRICS_READS.includes(below)) assert.is(metrics.status, 200, `metrics token ${route.method} ${path}`);
        else {
          assert.is(metrics.status, 403, `metrics token ${route.method} ${path}`);
          if (route.method !== 'HEAD') assert.match(JSON.parse(metrics.body.toString()).message, /^role "metrics" may only read /);
        }
      }
      // Variants of the open paths are not open: compared exactly, as received.
      for (const variant of ['/health/readiness/', '//health/readiness', '/health/%72eadiness', '/HEALTH/readiness', '/health/readiness/..', '/health']) {
        const reply = await capture(full.port, { method: 'GET', path: `${contextPath}${variant}` });
        assert.is(reply.status, 401, `anonymous GET ${contextPath}${variant}`);
      }
      for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS']) {
        assert.is((await capture(full.port, { method, path: `${contextPath}/health/readiness` })).status, 401, `anonymous ${method} probe`);
      }
      if (contextPath) assert.is((await capture(full.port, { method: 'GET', path: '/health/readiness' })).status, 401, 'the probe outside the context path');
      for (const variant of ['/metrics/', '/prometheus/sd/', '/metrics/../instances']) {
        const reply = await capture(full.port, { method: 'GET', path: `${contextPath}${variant}`, headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
        assert.is(reply.status, 403, `metrics token GET ${contextPath}${variant}`);
      }
      assert.equal(fake.requestsTo('/env'), [], 'nothing reached the proxy');
      console.log(`  ops access (context path "${contextPath}"): ${routes.length} routes, ${requests} requests`);
    } finally {
      await full.tk.stop();
      await fake.close();
    }
  });
}

test('reload: new users and tokens apply to the next request; an open stream stays open', async () => {
  const full = await startFullKernel();
  const admin = basic(ADMIN.username, ADMIN.password);
  const stream = await fetch(`${full.tk.url}/instances/events`, { headers: { accept: 'text/event-stream', authorization: admin } });
  try {
    assert.is(stream.status, 200);
    const reader = stream.body!.getReader();
    const report = await full.tk.reload({
      ...securityConfig(), ...discoveryConfig(),
      'basic-auth': { realm: 'Ops', users: [{ username: 'ops', password: 'new-ops-pw' }], tokens: [{ name: 'prometheus', token: METRICS_TOKEN, role: 'metrics' }] },
    });
    assert.equal(report, { applied: ['basic-auth'], restart: [], failed: [] });
    const old = await call('GET', `${full.tk.url}/applications`, { headers: { authorization: admin } });
    assert.is(old.status, 401, 'a removed user is refused at once (no cached verification survives)');
    assert.is(old.headers.get('www-authenticate'), 'Basic realm="Ops", charset="UTF-8"');
    assert.is((await call('GET', `${full.tk.url}/applications`, { headers: { authorization: basic('ops', 'new-ops-pw') } })).status, 200);
    assert.is((await call('GET', `${full.tk.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200);
    // The stream opened before the reload still delivers.
    const registered = await call('POST', `${full.tk.url}/instances`, { json: { name: 'late', healthUrl: 'http://127.0.0.1:9/health' }, headers: { authorization: basic('ops', 'new-ops-pw') } });
    assert.is(registered.status, 201);
    let text = '';
    while (!text.includes('"REGISTERED"')) {
      const { value, done } = await reader.read();
      assert.not.ok(done, 'the stream ended');
      text += Buffer.from(value!).toString('utf8');
    }
    await reader.cancel();
  } finally {
    await full.tk.stop();
  }
});

test.run();
