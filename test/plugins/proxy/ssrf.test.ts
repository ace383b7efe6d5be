import type { LookupAddress } from 'node:dns';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../core/plugin-api.js';
import { Exchange } from '../../../plugins/proxy/exchange.js';
import { callUpstream } from '../../../plugins/proxy/forward.js';
import { ProxyRuntime } from '../../../plugins/proxy/runtime.js';
import { proxyConfigSchema } from '../../../plugins/proxy/config-schema.js';
import { SSRF_REFUSED, SsrfGuard } from '../../../plugins/proxy/ssrf.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { proxyKernel, registerDetected } from './helpers.js';

const settings = (extra: Record<string, unknown> = {}) => ({ enabled: true, 'allowed-cidrs': [] as string[], 'allowed-schemes': ['http', 'https'], ...extra });

test('SSRF protection on: a loopback target is refused with 403 JSON before any call', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'ssrf-protection': { enabled: true } });
  try {
    const id = registerDetected(tk, fake);
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

test('SSRF protection: allowed-cidrs 127.0.0.0/8 lets loopback through; a disallowed scheme still fails', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['127.0.0.0/8'] } });
  const strict = await proxyKernel({ 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['127.0.0.0/8'], 'allowed-schemes': ['https'] } });
  try {
    const id = registerDetected(tk, fake);
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assert.is(res.status, 200);
    const strictId = registerDetected(strict, fake);
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

test('check(): IP literals in any spelling, names through the resolver, unresolvable names pass', async () => {
  const answers: Record<string, LookupAddress[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }],
    'sneaky.example': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.5', family: 4 }],
  };
  const guard = new SsrfGuard(settings(), async (host) => {
    const found = answers[host];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found;
  });
  const refused = async (url: string) => {
    try {
      await guard.check(new URL(url));
    } catch (error) {
      return error instanceof HttpError && error.status === 403;
    }
    return false;
  };
  for (const url of ['http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.1/', 'http://0177.0.0.1/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest', 'http://sneaky.example/', 'ftp://public.example/', 'file:///etc/passwd']) {
    assert.ok(await refused(url), url);
  }
  for (const url of ['http://public.example/', 'https://8.8.8.8/', 'http://unresolvable.example/']) {
    assert.not.ok(await refused(url), url);
  }
});

test('connectLookup refuses internal addresses at connect time (DNS rebinding) and passes allowed ones', async () => {
  const lookup = (guard: SsrfGuard, all: boolean) => new Promise<{ error: NodeJS.ErrnoException | null; address: unknown; family?: number }>((resolve) => {
    guard.connectLookup()('localhost', { all, family: 4 }, (error, address, family) => resolve({ error, address, family }));
  });
  const refused = await lookup(new SsrfGuard(settings()), true);
  assert.is(refused.error?.code, SSRF_REFUSED);
  const single = await lookup(new SsrfGuard(settings({ 'allowed-cidrs': ['127.0.0.0/8'] })), false);
  assert.is(single.error, null);
  assert.is(single.address, '127.0.0.1');
  assert.is(single.family, 4);
  const list = await lookup(new SsrfGuard(settings({ 'allowed-cidrs': ['127.0.0.0/8'] })), true);
  assert.equal(list.address, [{ address: '127.0.0.1', family: 4 }]);
});

test('a name that passed the check but connects to an internal address is refused with 403', async () => {
  const fake = await FakeActuator.start();
  // The pre-check is told "public"; the connection's own lookup then finds 127.0.0.1.
  const guard = new SsrfGuard(settings(), async () => [{ address: '93.184.216.34', family: 4 }]);
  const config = await proxyConfigSchema.validate({ 'ssrf-protection': { enabled: true } });
  const runtime = new ProxyRuntime(config, { resolve: async () => { throw new Error('unused'); } }, silentLog, guard);
  runtime.open();
  try {
    const target = { endpointId: 'health', url: new URL(`http://localhost:${fake.port}/actuator/health`), origin: `http://localhost:${fake.port}`, path: '/actuator/health' };
    await guard.check(target.url);
    let status = 0;
    try {
      await callUpstream(runtime.dispatcher(), {
        target, method: 'GET', headers: {}, body: null, exchange: new Exchange(), timeoutMs: 2000, bodyIdleMs: 2000,
      });
    } catch (error) {
      status = error instanceof HttpError ? error.status : -1;
    }
    assert.is(status, 403);
    assert.is(fake.requests.length, 0);
  } finally {
    await runtime.close();
    await fake.close();
  }
});

const silentLog = {
  error: () => undefined,
  warn: () => undefined,
  info: () => undefined,
  debug: () => undefined,
  child: () => silentLog,
};

test.run();
