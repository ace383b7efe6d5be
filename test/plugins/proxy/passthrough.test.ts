import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { defineToken, detectEndpointsCommand, type Registry, type VigilPlugin } from '../../../core/plugin-api.js';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { proxyKernel, rawRequest, registerDetected } from './helpers.js';

test('GET passes status, body bytes and Content-Type through; an instance 503 too', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    // Odd spacing and key order: a re-serialised body would differ.
    const body = '{"status":"UP",  "components":{"b":1,"a":2}}';
    fake.on('GET', '/health', { body, contentType: ACTUATOR_V3 });
    const ok = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(ok.status, 200);
    assert.is(ok.text, body);
    assert.is(ok.headers.get('content-type'), ACTUATOR_V3);

    fake.on('GET', '/health', { status: 503, body: '{"status":"DOWN"}', contentType: ACTUATOR_V3 });
    const down = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(down.status, 503);
    assert.is(down.text, '{"status":"DOWN"}');

    fake.on('DELETE', '/loggers', { status: 500, body: 'boom', contentType: 'text/plain' });
    const failed = await call('DELETE', `${tk.url}/instances/${id}/actuator/loggers`);
    assert.is(failed.status, 500);
    assert.is(failed.text, 'boom');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('metrics/{name} keeps further segments and the raw query', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/metrics/jvm.memory.used', { json: { name: 'jvm.memory.used' }, contentType: ACTUATOR_V3 });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/metrics/jvm.memory.used?tag=area:heap&tag=id:G1%20Eden`);
    assert.is(res.status, 200);
    assert.equal(res.json, { name: 'jvm.memory.used' });
    const seen = fake.requestsTo('/metrics/jvm.memory.used', 'GET').at(-1);
    assert.is(seen?.url, '/actuator/metrics/jvm.memory.used?tag=area:heap&tag=id:G1%20Eden');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a space sent as %20 reaches the instance still encoded', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake, { endpoints: ['health', 'test'] });
    fake.on('GET', '/test/has%20spaces', { body: 'ok', contentType: 'text/plain' });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/test/has spaces`);
    assert.is(res.status, 200);
    assert.is(fake.requests.at(-1)?.url, '/actuator/test/has%20spaces');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('POST forwards body and Content-Type; DELETE drops its body; PUT and PATCH forward', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('POST', '/loggers/com.example', { status: 204 });
    const posted = await call('POST', `${tk.url}/instances/${id}/actuator/loggers/com.example`, { json: { configuredLevel: 'DEBUG' } });
    assert.is(posted.status, 204);
    const seen = fake.requestsTo('/loggers/com.example', 'POST').at(-1)!;
    assert.is(seen.body.toString(), '{"configuredLevel":"DEBUG"}');
    assert.is(seen.headers['content-type'], 'application/json');

    fake.on('DELETE', '/loggers/com.example', { status: 204 });
    const deleted = await call('DELETE', `${tk.url}/instances/${id}/actuator/loggers/com.example`, { body: 'PAYLOAD', headers: { 'content-type': 'text/plain' } });
    assert.is(deleted.status, 204);
    const deleteSeen = fake.requestsTo('/loggers/com.example', 'DELETE').at(-1)!;
    assert.is(deleteSeen.body.length, 0);
    assert.is(deleteSeen.headers['content-length'], undefined);

    for (const method of ['PUT', 'PATCH']) {
      fake.on(method, '/env', { status: 200, body: 'done', contentType: 'text/plain' });
      const res = await call(method, `${tk.url}/instances/${id}/actuator/env`, { body: `${method} PAYLOAD`, headers: { 'content-type': 'text/plain' } });
      assert.is(res.text, 'done');
      assert.is(fake.requestsTo('/env', method).at(-1)?.body.toString(), `${method} PAYLOAD`);
    }
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('HEAD answers headers only; OPTIONS passes the instance Allow header', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('HEAD', '/heapdump', { status: 200, headers: { 'content-length': '1234', 'content-type': 'application/octet-stream' } });
    const head = await rawRequest(tk.url, 'HEAD', `/instances/${id}/actuator/heapdump`);
    assert.is(head.status, 200);
    assert.is(head.headers['content-length'], '1234');
    assert.is(head.body.length, 0);
    assert.is(fake.requestsTo('/heapdump', 'HEAD').length, 1);

    fake.on('OPTIONS', '/env', { status: 200, headers: { allow: 'HEAD,GET,OPTIONS' } });
    const options = await call('OPTIONS', `${tk.url}/instances/${id}/actuator/env`);
    assert.is(options.status, 200);
    assert.is(options.headers.get('allow'), 'HEAD,GET,OPTIONS');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('ignored and hop-by-hop headers are dropped both ways; ordinary ones pass; credentials added', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake, { metadata: { 'user.name': 'test', 'user.password': 'drowssap' } });
    fake.on('GET', '/env', {
      json: { propertySources: [] },
      contentType: ACTUATOR_V3,
      headers: { 'set-cookie': 'instance-session=1; Path=/', 'x-instance-marker': 'from-instance', 'x-application-context': 'app:8080' },
    });
    const res = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/env`, {
      cookie: 'client-session=secret',
      authorization: 'Bearer client-token',
      'x-kit-marker': 'forward-me',
      'x-drop-me': 'hop',
      connection: 'keep-alive, X-Drop-Me',
      'proxy-authorization': 'Basic eA==',
      te: 'trailers',
    });
    assert.is(res.status, 200);
    const seen = fake.requestsTo('/env', 'GET').at(-1)!;
    assert.is(seen.headers.cookie, undefined);
    assert.is(seen.headers.authorization, 'Basic dGVzdDpkcm93c3NhcA==');
    assert.is(seen.headers['x-kit-marker'], 'forward-me');
    assert.is(seen.headers['x-drop-me'], undefined);
    assert.is(seen.headers['proxy-authorization'], undefined);
    assert.is(seen.headers.te, undefined);
    assert.not.equal(seen.headers.host, new URL(tk.url).host);
    assert.is(res.headers['set-cookie'], undefined);
    assert.is(res.headers['x-application-context'], undefined);
    assert.is(res.headers['x-instance-marker'], 'from-instance');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('default Accept only when the caller sent none; logfile gets text/plain', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/logfile', { body: 'log line\n', contentType: 'text/plain' });
    await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/info`);
    assert.is(fake.requestsTo('/info').at(-1)?.headers.accept,
      'application/vnd.spring-boot.actuator.v3+json, application/vnd.spring-boot.actuator.v2+json, application/json');
    await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/info`, { accept: 'application/octet-stream' });
    assert.is(fake.requestsTo('/info').at(-1)?.headers.accept, 'application/octet-stream');
    const log = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/logfile`);
    assert.is(log.body.toString(), 'log line\n');
    assert.is(fake.requestsTo('/logfile').at(-1)?.headers.accept, 'text/plain, */*');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('ignored-headers is configurable and case-insensitive', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'ignored-headers': ['X-Secret'] });
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/env', { json: {}, headers: { 'X-SECRET': 'no', 'set-cookie': 'a=1' } });
    const res = await rawRequest(tk.url, 'GET', `/instances/${id}/actuator/env`, { 'x-secret': 'mine', cookie: 'c=1' });
    const seen = fake.requestsTo('/env').at(-1)!;
    assert.is(seen.headers['x-secret'], undefined);
    assert.is(seen.headers.cookie, 'c=1');
    assert.is(res.headers['x-secret'], undefined);
    assert.equal(res.headers['set-cookie'], ['a=1']);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('404 JSON for an unknown instance, an undetected endpoint, no endpoint, a deregistered instance', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake, { endpoints: ['health'] });
    for (const path of [
      '/instances/unknown0000/actuator/health',
      `/instances/${id}/actuator/env`,
      `/instances/${id}/actuator/`,
      `/instances/${id}/actuator`,
    ]) {
      const res = await call('GET', `${tk.url}${path}`);
      assert.is(res.status, 404, path);
      const body = res.json as { status: number; path: string; message: string };
      assert.is(body.status, 404, path);
      assert.is(body.path, path);
    }
    await tk.kernel.registry.deregister(id);
    assert.is((await call('GET', `${tk.url}/instances/${id}/actuator/health`)).status, 404);
    assert.is(fake.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('health always points at the registered healthUrl; relative endpoint hrefs resolve against the management URL', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake, { endpoints: { info: '/actuator/custom/info' } });
    fake.on('GET', '/custom/info', { json: { relative: true } });
    const info = await call('GET', `${tk.url}/instances/${id}/actuator/info`);
    assert.equal(info.json, { relative: true });
    const health = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(health.status, 200);
    assert.is(fake.requests.at(-1)?.path, '/actuator/health');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('works under a context path', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({}, [], { 'context-path': '/admin' });
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/metrics/a%2Bb', { json: { plus: true } });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/metrics/a%2Bb?x=1`);
    assert.equal(res.json, { plus: true });
    assert.is(fake.requests.at(-1)?.url, '/actuator/metrics/a%2Bb?x=1');
    assert.ok(tk.url.endsWith('/admin'));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('an endpoint-detector service, when present, is asked for an instance with nothing detected yet', async () => {
  const fake = await FakeActuator.start();
  const asked: string[] = [];
  let registry: Registry | undefined;
  const detector: VigilPlugin<never> = {
    name: 'test-detector',
    configKey: null,
    setup(ctx) {
      registry = ctx.registry;
      ctx.services.provide(defineToken<{ ensureDetected(id: string): Promise<void> }>('vigil.endpoint-detector'), {
        async ensureDetected(id) {
          asked.push(id);
          if (registry!.get(id)?.registration?.name === 'broken') throw new Error('detector failed');
          registry!.apply(id, detectEndpointsCommand([{ id: 'info', url: fake.endpointUrl('info') }]));
        },
      });
    },
  };
  const tk = await proxyKernel({}, [detector]);
  try {
    const registration = { managementUrl: fake.managementUrl, serviceUrl: null, source: 'http-api', metadata: {} };
    const { id } = await tk.kernel.registry.register({ ...registration, name: 'lazy', healthUrl: fake.healthUrl });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/info`);
    assert.is(res.status, 200);
    assert.equal(asked, [id]);
    // Detected now: an unknown id is 404 without another detection.
    assert.is((await call('GET', `${tk.url}/instances/${id}/actuator/beans`)).status, 404);
    assert.equal(asked, [id]);
    const { id: brokenId } = await tk.kernel.registry.register({ ...registration, name: 'broken', healthUrl: `${fake.healthUrl}?b` });
    assert.is((await call('GET', `${tk.url}/instances/${brokenId}/actuator/info`)).status, 404);
    assert.equal(asked, [id, brokenId]);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
