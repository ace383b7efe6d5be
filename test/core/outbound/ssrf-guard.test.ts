import type { LookupAddress } from 'node:dns';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../core/plugin-api.js';
import { SSRF_REFUSED, SsrfGuard, type Resolver } from '../../../core/outbound/ssrf-guard.js';
import { startTestKernel } from '../../../core/testing.js';
import { Exchange } from '../../../plugins/proxy/exchange.js';
import { callUpstream } from '../../../plugins/proxy/forward.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { testOutbound } from '../../support/outbound.js';
import { proxyKernel, registerDetected } from '../../plugins/proxy/helpers.js';

const settings = (extra: Record<string, unknown> = {}) => ({ enabled: true, 'allowed-cidrs': [] as string[], 'allowed-schemes': ['http', 'https'], ...extra });

test('SSRF protection on: a loopback target is refused with 403 JSON before any call', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({}, [], { 'ssrf-protection': { enabled: true } });
  try {
    const id = await registerDetected(tk, fake);
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(res.status, 403);
    assert.match((res.json as { message: string }).message, /SSRF protection/);
    const fanned = await call('GET', `${tk.url}/applications/app/actuator/health`);
    assert.equal((fanned.json as { status: number }[]).map((r) => r.status), [403]);
    assert.is(fake.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('the old key proxy.ssrf-protection still works, with one deprecation line', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'ssrf-protection': { enabled: true } }, [], { 'log-level': 'warn' });
  try {
    const id = await registerDetected(tk, fake);
    assert.is((await call('GET', `${tk.url}/instances/${id}/actuator/health`)).status, 403);
    assert.is(tk.logs().filter((line) => line.includes('proxy.ssrf-protection is deprecated: use the top-level key ssrf-protection')).length, 1);
  } finally {
    await tk.stop();
    await fake.close();
  }
  const both = await startTestKernel({ plugins: ['proxy'], config: { proxy: { 'ssrf-protection': {} }, 'ssrf-protection': {} } }).catch((error: Error) => error);
  assert.instance(both, Error);
  assert.match((both as Error).message, /proxy\.ssrf-protection: moved to the top-level key ssrf-protection, which is also set/);
});

test('SSRF protection covers monitoring too: a loopback health URL is OFFLINE, never called', async () => {
  const fake = await FakeActuator.start();
  const tk = await startTestKernel({
    plugins: ['rest-api', 'monitor'],
    config: { 'ssrf-protection': { enabled: true }, monitor: { 'status-interval': '200ms', 'status-lifetime': '100ms' } },
  });
  try {
    const { id } = await tk.kernel.instances.register({ ...fake.registration('app'), source: 'http-api' } as never);
    const event = await tk.waitForEvent((e) => e.instance === id && e.type === 'STATUS_CHANGED', 'a status of the refused instance');
    assert.is(event.type === 'STATUS_CHANGED' && event.statusInfo.status, 'OFFLINE');
    assert.match(JSON.stringify(event.type === 'STATUS_CHANGED' && event.statusInfo.details), /SSRF protection/);
    assert.is(fake.requests.length, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('SSRF protection: allowed-cidrs 127.0.0.0/8 lets loopback through; a disallowed scheme still fails', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({}, [], { 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['127.0.0.0/8'] } });
  const strict = await proxyKernel({}, [], { 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['127.0.0.0/8'], 'allowed-schemes': ['https'] } });
  try {
    const id = await registerDetected(tk, fake);
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(res.status, 200);
    const strictId = await registerDetected(strict, fake);
    const refused = await call('GET', `${strict.url}/instances/${strictId}/actuator/health`);
    assert.is(refused.status, 403);
    assert.match((refused.json as { message: string }).message, /disallowed scheme 'http'/);
  } finally {
    await tk.stop();
    await strict.stop();
    await fake.close();
  }
});

test('the address filter: internal ranges refused, public ones and allowed CIDRs permitted', () => {
  const guard = new SsrfGuard(settings({ 'allowed-cidrs': ['10.1.0.0/16', '2001:db8::1'] }));
  for (const address of ['127.0.0.1', '127.255.255.255', '10.0.0.1', '172.16.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254',
    '0.0.0.0', '::1', '::', 'fe80::1', 'fc00::1', 'fd12:3456::1', '::ffff:127.0.0.1', 'not-an-ip']) {
    assert.not.ok(guard.permits(address), address);
  }
  for (const address of ['8.8.8.8', '172.15.0.1', '172.32.0.1', '2606:4700::1111', '10.1.2.3', '2001:db8::1']) {
    assert.ok(guard.permits(address), address);
  }
});

test('refusalOf(): IP literals in any spelling and disallowed schemes; names are left to the connection', () => {
  const guard = new SsrfGuard(settings());
  for (const url of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest', 'ftp://public.example/', 'file:///etc/passwd']) {
    assert.is(guard.refusalOf(new URL(url))?.code, SSRF_REFUSED, url);
  }
  for (const url of ['http://public.example/', 'https://8.8.8.8/', 'http://localhost/']) {
    assert.is(guard.refusalOf(new URL(url)), undefined, url);
  }
});

test('connectLookup refuses a name with any internal address (DNS rebinding) and passes allowed ones', async () => {
  const answers: Record<string, LookupAddress[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'sneaky.example': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }],
  };
  const resolver: Resolver = (host, callback) => {
    const found = answers[host];
    if (found) callback(null, found);
    else callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
  };
  const lookup = (guard: SsrfGuard, host: string, all: boolean) => new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
    guard.connectLookup()(host, { all, family: 4 }, (error, address, family) => resolve({ error, address, family }));
  });
  assert.is((await lookup(new SsrfGuard(settings(), resolver), 'sneaky.example', true)).error?.code, SSRF_REFUSED);
  assert.is((await lookup(new SsrfGuard(settings()), 'localhost', true)).error?.code, SSRF_REFUSED);
  assert.is((await lookup(new SsrfGuard(settings(), resolver), 'nowhere.example', false)).error?.code, 'ENOTFOUND');
  const single = await lookup(new SsrfGuard(settings(), resolver), 'public.example', false);
  assert.is(single.error, null);
  assert.is(single.address, '93.184.216.34');
  assert.is(single.family, 4);
  const list = await lookup(new SsrfGuard(settings({ 'allowed-cidrs': ['127.0.0.0/8'] })), 'localhost', true);
  assert.equal(list.address, [{ address: '127.0.0.1', family: 4 }]);
});

test('a name that connects to an internal address is refused with 403 by the proxy, never called', async () => {
  const fake = await FakeActuator.start();
  const agent = testOutbound({ ssrf: { enabled: true } }).createAgent();
  try {
    const target = { endpointId: 'health', url: new URL(`http://localhost:${fake.port}/actuator/health`), origin: `http://localhost:${fake.port}`, path: '/actuator/health' };
    let status = 0;
    try {
      await callUpstream(agent, { target, method: 'GET', headers: {}, body: null, exchange: new Exchange(), timeoutMs: 2000, bodyIdleMs: 2000 });
    } catch (error) {
      status = error instanceof HttpError ? error.status : -1;
    }
    assert.is(status, 403);
    assert.is(fake.requests.length, 0);
  } finally {
    await agent.destroy();
    await fake.close();
  }
});

test.run();
