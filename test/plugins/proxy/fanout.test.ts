import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { detectEndpointsCommand } from '../../../core/plugin-api.js';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { call, eventually } from '../../support/http.js';
import { checkPlugin } from '../../../bin/testing.js';
import { proxyKernel, rawRequest, registerDetected } from './helpers.js';

interface Result {
  instanceId: string;
  status: number;
  body?: string;
  contentType?: string;
}

const byId = (results: unknown) => [...(results as Result[])].sort((a, b) => a.instanceId.localeCompare(b.instanceId));

test('GET fans out to every instance and answers one result each', async () => {
  const [a, b, other] = [await FakeActuator.start(), await FakeActuator.start(), await FakeActuator.start()];
  const tk = await proxyKernel();
  try {
    const ids = [await registerDetected(tk, a, { name: 'shop' }), await registerDetected(tk, b, { name: 'shop' })];
    await registerDetected(tk, other, { name: 'other' });
    a.on('GET', '/info', { body: '{"n": 1}', contentType: ACTUATOR_V3 });
    b.on('GET', '/info', { status: 503, body: 'down', contentType: 'text/plain' });
    const res = await call('GET', `${tk.url}/applications/shop/actuator/info?x=1`, { headers: { 'accept-encoding': 'gzip' } });
    assert.is(res.status, 200);
    assert.is(res.headers.get('content-type'), 'application/json');
    const expected = [
      { instanceId: ids[0]!, status: 200, body: '{"n": 1}', contentType: ACTUATOR_V3 },
      { instanceId: ids[1]!, status: 503, body: 'down', contentType: 'text/plain' },
    ].sort((x, y) => x.instanceId.localeCompare(y.instanceId));
    assert.equal(byId(res.json), expected);
    assert.is(a.requestsTo('/info').at(-1)?.url, '/actuator/info?x=1');
    // Bodies come back as text, so the instances are asked for an unencoded one.
    assert.is(a.requestsTo('/info').at(-1)?.headers['accept-encoding'], undefined);
  } finally {
    await tk.stop();
    await Promise.all([a.close(), b.close(), other.close()]);
  }
});

test('POST sends the same body to each instance; DELETE sends none; empty answers carry no body', async () => {
  const [a, b] = [await FakeActuator.start(), await FakeActuator.start()];
  const tk = await proxyKernel({ 'fan-out': { concurrency: 1 } });
  try {
    await registerDetected(tk, a, { name: 'shop' });
    await registerDetected(tk, b, { name: 'shop' });
    for (const fake of [a, b]) {
      fake.on('POST', '/loggers/com.example', { status: 204 });
      fake.on('DELETE', '/loggers/com.example', { status: 204 });
    }
    const posted = await call('POST', `${tk.url}/applications/shop/actuator/loggers/com.example`, { json: { configuredLevel: 'WARN' } });
    assert.is(posted.status, 200);
    for (const result of posted.json as Result[]) assert.equal(Object.keys(result).sort(), ['instanceId', 'status']);
    for (const fake of [a, b]) {
      const seen = fake.requestsTo('/loggers/com.example', 'POST').at(-1)!;
      assert.is(seen.body.toString(), '{"configuredLevel":"WARN"}');
      assert.is(seen.headers['content-type'], 'application/json');
      assert.is(seen.headers['content-length'], String(seen.body.length));
    }
    const deleted = await call('DELETE', `${tk.url}/applications/shop/actuator/loggers/com.example`, { body: 'PAYLOAD' });
    assert.equal((deleted.json as Result[]).map((r) => r.status), [204, 204]);
    for (const fake of [a, b]) assert.is(fake.requestsTo('/loggers/com.example', 'DELETE').at(-1)?.body.length, 0);
  } finally {
    await tk.stop();
    await a.close();
    await b.close();
  }
});

test('unknown application answers 200 []', async () => {
  const tk = await proxyKernel();
  try {
    const res = await call('GET', `${tk.url}/applications/nobody/actuator/health`);
    assert.is(res.status, 200);
    assert.equal(res.json, []);
  } finally {
    await tk.stop();
  }
});

test('per-instance failures use the proxy codes: 404, 502 (refused, reset mid-body, oversized body)', async () => {
  const [ok, big, broken] = [await FakeActuator.start(), await FakeActuator.start(), await FakeActuator.start()];
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const deadPort = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  const tk = await proxyKernel({ 'fan-out': { 'max-response-bytes': 1024 } });
  try {
    const missing = await registerDetected(tk, ok, { name: 'mixed', endpoints: ['health'] });
    const bigId = await registerDetected(tk, big, { name: 'mixed' });
    const brokenId = await registerDetected(tk, broken, { name: 'mixed' });
    const { id: deadId } = await tk.kernel.registry.register({
      name: 'mixed', managementUrl: `http://127.0.0.1:${deadPort}/actuator`, healthUrl: `http://127.0.0.1:${deadPort}/actuator/health`,
      serviceUrl: null, source: 'http-api', metadata: {},
    });
    await tk.kernel.registry.apply(deadId, detectEndpointsCommand([{ id: 'env', url: `http://127.0.0.1:${deadPort}/actuator/env` }]));
    big.on('GET', '/env', { body: 'x'.repeat(4096), contentType: 'text/plain' });
    broken.on('GET', '/env', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('partial', () => res.socket?.destroy());
      },
    });
    const res = await call('GET', `${tk.url}/applications/mixed/actuator/env`);
    assert.is(res.status, 200);
    const statuses = Object.fromEntries((res.json as Result[]).map((r) => [r.instanceId, r.status]));
    assert.equal(statuses, { [missing]: 404, [bigId]: 502, [brokenId]: 502, [deadId]: 502 });
    for (const result of res.json as Result[]) assert.is(result.body, undefined);
  } finally {
    await tk.stop();
    await Promise.all([ok.close(), big.close(), broken.close()]);
  }
});

test('proxy.timeout covers the whole exchange of each instance: no headers, or a body that never ends, is 504', async () => {
  const [silent, drip] = [await FakeActuator.start(), await FakeActuator.start()];
  const tk = await proxyKernel({ timeout: '300ms' });
  try {
    const silentId = await registerDetected(tk, silent, { name: 'slow' });
    const dripId = await registerDetected(tk, drip, { name: 'slow' });
    silent.on('GET', '/env', { handler: () => undefined });
    drip.on('GET', '/env', { handler: (_req, res) => { res.writeHead(200); res.write('partial'); } });
    const res = await call('GET', `${tk.url}/applications/slow/actuator/env`);
    const statuses = Object.fromEntries((res.json as Result[]).map((r) => [r.instanceId, r.status]));
    assert.equal(statuses, { [silentId]: 504, [dripId]: 504 });
  } finally {
    await tk.stop();
    await silent.close();
    await drip.close();
  }
});

test('one byte budget per fan-out (proxy.fan-out-max-bytes): answers past it are left out, each cut instance named in the JSON', async () => {
  const fakes = await Promise.all(Array.from({ length: 6 }, () => FakeActuator.start()));
  // One instance at a time: which answers fit is then the order of the instances.
  const tk = await proxyKernel({ 'fan-out-max-bytes': 2500, 'fan-out': { concurrency: 1 } });
  try {
    const ids: string[] = [];
    for (const [index, fake] of fakes.entries()) {
      ids.push(await registerDetected(tk, fake, { name: 'big' }));
      fake.on('GET', '/env', { body: index === 5 ? 's'.repeat(100) : String(index).repeat(1000), contentType: 'text/plain' });
    }
    const res = await call('GET', `${tk.url}/applications/big/actuator/env`);
    assert.is(res.status, 200);
    const results = res.json as (Result & { cut?: boolean; message?: string })[];
    assert.equal(results.map((result) => result.instanceId), ids, 'every instance answered for, in order');
    assert.equal(results.slice(0, 2).map((result) => [result.status, result.body]), [[200, '0'.repeat(1000)], [200, '1'.repeat(1000)]]);
    for (const cut of results.slice(2, 5)) {
      assert.equal(cut, {
        instanceId: cut.instanceId, status: 502, cut: true,
        message: 'answer left out: the answers of this fan-out reached proxy.fan-out-max-bytes (2500 bytes)',
      });
    }
    assert.equal([results[5]!.status, results[5]!.body], [200, 's'.repeat(100)], 'a small answer that still fits is kept');
    // The budget is per fan-out: the next one starts afresh.
    const again = await call('GET', `${tk.url}/applications/big/actuator/env`);
    assert.is((again.json as { cut?: boolean }[]).filter((result) => result.cut).length, 3);
  } finally {
    await tk.stop();
    await Promise.all(fakes.map((fake) => fake.close()));
  }
});

test('beyond proxy.max-concurrent-fan-outs a fan-out is refused with 503 and Retry-After, calling no instance', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'max-concurrent-fan-outs': 1 });
  try {
    await registerDetected(tk, fake, { name: 'shop' });
    const held: (() => void)[] = [];
    fake.on('GET', '/env', { handler: (_req, res) => held.push(() => res.end('{}')) });
    const first = call('GET', `${tk.url}/applications/shop/actuator/env`);
    await eventually(() => held.length === 1, 'the first fan-out reached the instance');
    const refused = await call('GET', `${tk.url}/applications/shop/actuator/env`);
    assert.is(refused.status, 503);
    assert.is(refused.headers.get('retry-after'), '1');
    assert.match((refused.json as { message: string }).message, /too many fan-outs at once \(proxy\.max-concurrent-fan-outs = 1\); try again shortly/);
    assert.is(fake.requestsTo('/env').length, 1, 'the refused fan-out called nothing');
    // A single-instance call is not a fan-out and is not counted.
    const single = call('GET', `${tk.url}/instances/${tk.kernel.registry.list('shop')[0]!.id}/actuator/env`);
    await eventually(() => held.length === 2, 'the single call reached the instance');
    for (const release of held.splice(0)) release();
    assert.is((await first).status, 200);
    assert.is((await single).status, 200);

    // The slot is free again, also after a client that left mid-way.
    const abandoned = httpRequest(`${tk.url}/applications/shop/actuator/env`);
    abandoned.on('error', () => undefined);
    abandoned.end();
    await eventually(() => held.length === 1, 'the abandoned fan-out reached the instance');
    abandoned.destroy();
    await eventually(async () => {
      const reply = await call('GET', `${tk.url}/applications/shop/actuator/health`);
      return reply.status === 200;
    }, 'the slot of the abandoned fan-out is free');
    for (const release of held.splice(0)) release();
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('config: fan-out-max-bytes and max-concurrent-fan-outs are checked', async () => {
  const problems = await checkPlugin('proxy', { proxy: { 'fan-out-max-bytes': 0, 'max-concurrent-fan-outs': 'many' } });
  assert.ok(problems.some((problem) => problem.includes('proxy.fan-out-max-bytes')), problems.join('\n'));
  assert.ok(problems.some((problem) => problem.includes('proxy.max-concurrent-fan-outs')), problems.join('\n'));
  assert.equal(await checkPlugin('proxy', { proxy: { 'fan-out-max-bytes': 1024, 'max-concurrent-fan-outs': 2 } }), []);
});

test('a fan-out body over 1 MiB is 413; an unsafe path is 400 before any call', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    await registerDetected(tk, fake, { name: 'shop' });
    const big = Buffer.alloc(1024 * 1024 + 1, 97);
    const declared = await rawRequest(tk.url, 'POST', '/applications/shop/actuator/env', { 'content-type': 'text/plain' }, big);
    assert.is(declared.status, 413);
    const chunked = await rawRequest(tk.url, 'POST', '/applications/shop/actuator/env', { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' }, big);
    assert.is(chunked.status, 413);
    const unsafe = await rawRequest(tk.url, 'GET', '/applications/shop/actuator/health/%2e%2e/env');
    assert.is(unsafe.status, 400);
    const none = await rawRequest(tk.url, 'GET', '/applications/shop/actuator');
    assert.is(none.status, 404);
    assert.is(fake.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
