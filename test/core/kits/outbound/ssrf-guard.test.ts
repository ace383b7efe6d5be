import type { LookupAddress } from 'node:dns';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError, SSRF_REFUSED } from '../../../../core/plugin-api.js';
import { embeddedIpv4, ipv6Groups } from '../../../../core/kits/outbound/embedded-ipv4.js';
import { SsrfGuard, type Resolver } from '../../../../core/kits/outbound/index.js';
import { startTestKernel } from '../../../../bin/testing.js';
import { Exchange } from '../../../../plugins/proxy/exchange.js';
import { callUpstream } from '../../../../plugins/proxy/forward.js';
import { FakeActuator } from '../../../support/fake-actuator.js';
import { call } from '../../../support/http.js';
import { testOutbound } from '../../../support/outbound.js';
import { proxyKernel, registerDetected } from '../../../plugins/proxy/helpers.js';

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
    const { id } = await tk.kernel.registry.register({ ...fake.registration('app'), source: 'http-api' } as never);
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

test('SSRF ranges: shared address space (100.64/10), site-local (fec0::/10), NAT64 and 6to4 prefixes are internal', () => {
  const guard = new SsrfGuard(settings());
  for (const address of ['100.64.0.1', '100.100.100.200', '100.127.255.255', 'fec0::1', 'feff:ffff::1', '64:ff9b::808:808', '2002:808:808::1']) {
    assert.not.ok(guard.permits(address), address);
  }
  for (const address of ['100.63.255.255', '100.128.0.0', 'fe00::1', '2003::1', '64:ff9c::808:808']) {
    assert.ok(guard.permits(address), address);
  }
});

test('IPv4 inside IPv6 is judged by the IPv4 rules: mapped, compatible, NAT64 (64:ff9b::/96) and 6to4 (2002::/16, bits 16-48)', () => {
  const guard = new SsrfGuard(settings());
  const internal = [
    '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::ffff:100.64.0.1', // IPv4-mapped
    '::127.0.0.1', '::7f00:1', '::a00:1', '::169.254.169.254', '::c0a8:101', // IPv4-compatible
    '64:ff9b::127.0.0.1', '64:ff9b::7f00:1', '64:ff9b::a9fe:a9fe', '64:ff9b::ac10:1', // NAT64
    '2002:7f00:1::', '2002:7f00:1:1234::1', '2002:a9fe:a9fe::', '2002:c0a8:101:ffff:ffff:ffff:ffff:ffff', // 6to4
  ];
  for (const address of internal) assert.not.ok(guard.permits(address), address);
  for (const url of ['http://[::ffff:127.0.0.1]/', 'http://[::127.0.0.1]/', 'http://[64:ff9b::169.254.169.254]/latest', 'http://[2002:7f00:1::1]:8080/']) {
    assert.is(guard.refusalOf(new URL(url))?.code, SSRF_REFUSED, url);
  }
  // Public IPv4 inside: mapped and compatible forms are that IPv4 address on the wire.
  for (const address of ['::ffff:8.8.8.8', '::ffff:808:808', '::8.8.8.8']) assert.ok(guard.permits(address), address);

  // allowed-cidrs: an IPv4 entry permits the mapped and compatible forms of its addresses; the
  // NAT64 and 6to4 prefixes need an IPv6 entry of their own, and even then an internal IPv4
  // address inside is refused unless an IPv4 entry allows it.
  const allowing = new SsrfGuard(settings({ 'allowed-cidrs': ['10.1.0.0/16', '64:ff9b::/96', '2002::/16'] }));
  for (const address of ['::ffff:10.1.2.3', '::10.1.2.3', '64:ff9b::808:808', '64:ff9b::10.1.2.3', '2002:808:808::1', '2002:a01:203::1']) {
    assert.ok(allowing.permits(address), address);
  }
  for (const address of ['::ffff:10.2.0.1', '::10.2.0.1', '64:ff9b::127.0.0.1', '64:ff9b::10.2.0.1', '2002:7f00:1::', '2002:a9fe:a9fe::1', '::1', '::']) {
    assert.not.ok(allowing.permits(address), address);
  }
  const ipv4Only = new SsrfGuard(settings({ 'allowed-cidrs': ['10.1.0.0/16'] }));
  assert.not.ok(ipv4Only.permits('64:ff9b::10.1.2.3'), 'NAT64 itself is not allowed');
  assert.not.ok(ipv4Only.permits('2002:a01:203::1'), '6to4 itself is not allowed');
});

test('embeddedIpv4 / ipv6Groups: every spelling of an IPv6 address, nothing read from what is not one', () => {
  assert.equal(ipv6Groups('2002:7f00:1::'), [0x2002, 0x7f00, 1, 0, 0, 0, 0, 0]);
  assert.equal(ipv6Groups('[::ffff:127.0.0.1]'), [0, 0, 0, 0, 0, 0xffff, 0x7f00, 1]);
  assert.equal(ipv6Groups('fe80::1%eth0'), [0xfe80, 0, 0, 0, 0, 0, 0, 1]);
  assert.equal(ipv6Groups('1:2:3:4:5:6:7:8'), [1, 2, 3, 4, 5, 6, 7, 8]);
  for (const text of ['127.0.0.1', '1::2::3', '1:2:3:4:5:6:7', '1:2:3:4:5:6:7:8:9', '1:2:3:4::5:6:7:8', '::1.2.3', '::1.2.3.256', '::g', '::12345']) {
    assert.is(ipv6Groups(text), undefined, text);
  }
  assert.equal(embeddedIpv4('::ffff:a9fe:a9fe'), { ipv4: '169.254.169.254', embedding: 'mapped' });
  assert.equal(embeddedIpv4('::0.0.0.2'), { ipv4: '0.0.0.2', embedding: 'compatible' });
  assert.equal(embeddedIpv4('64:ff9b::c000:221'), { ipv4: '192.0.2.33', embedding: 'nat64' });
  assert.equal(embeddedIpv4('2002:c000:221:1::1'), { ipv4: '192.0.2.33', embedding: '6to4' });
  for (const text of ['::', '::1', '2001:db8::1', '64:ff9b:1::1', '10.0.0.1']) assert.is(embeddedIpv4(text), undefined, text);
});

test('check(): a name is judged by every address it resolves to now; one that does not resolve is refused', async () => {
  const answers: Record<string, LookupAddress[]> = {
    'public.example': [{ address: '93.184.216.34', family: 4 }, { address: '2606:2800:220:1::1', family: 6 }],
    'mixed.example': [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.1', family: 4 }],
    'empty.example': [],
  };
  const resolver: Resolver = (hostname, callback) => {
    if (hostname === 'missing.example') return callback(Object.assign(new Error('queryA ENOTFOUND'), { code: 'ENOTFOUND' }), []);
    return callback(null, answers[hostname] ?? []);
  };
  const guard = new SsrfGuard(settings(), resolver);
  assert.is(await guard.check(new URL('http://public.example/')), undefined);
  assert.is(await guard.check(new URL('https://8.8.8.8/')), undefined);
  assert.match(String((await guard.check(new URL('http://mixed.example/')))?.message), /mixed\.example resolves to 10\.0\.0\.1/);
  assert.match(String((await guard.check(new URL('http://missing.example/')))?.message), /missing\.example does not resolve \(ENOTFOUND\)/);
  assert.match(String((await guard.check(new URL('http://empty.example/')))?.message), /empty\.example does not resolve$/);
  assert.match(String((await guard.check(new URL('http://[::1]/')))?.message), /::1 is not a permitted address/);
});

test('connectLookup judges a DNS64 (AAAA 64:ff9b::/96) answer by the IPv4 address inside', async () => {
  const answers: Record<string, LookupAddress[]> = {
    'metadata.example': [{ address: '64:ff9b::a9fe:a9fe', family: 6 }],
    'public.example': [{ address: '64:ff9b::5db8:d822', family: 6 }],
  };
  const resolver: Resolver = (hostname, callback) => callback(null, answers[hostname] ?? []);
  const guard = new SsrfGuard(settings({ 'allowed-cidrs': ['64:ff9b::/96'] }), resolver);
  const lookup = (hostname: string) => new Promise<{ error: NodeJS.ErrnoException | null; address: unknown }>((resolve) => {
    guard.connectLookup()(hostname, { all: true }, (error, address) => resolve({ error, address }));
  });
  assert.is((await lookup('metadata.example')).error?.code, SSRF_REFUSED);
  assert.equal((await lookup('public.example')).address, answers['public.example']);
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
