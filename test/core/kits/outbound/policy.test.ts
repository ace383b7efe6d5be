import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { emptyInstance } from '../../../../core/store/instance.js';
import type { Instance, Registration } from '../../../../core/store/types.js';
import { testOutbound } from '../../../support/outbound.js';

function registered(overrides: Partial<Registration> = {}): Instance {
  const registration: Registration = {
    name: 'shop', healthUrl: 'http://shop:8081/actuator/health', managementUrl: 'http://shop:8081/actuator',
    serviceUrl: 'http://shop:8080/', source: 'http-api', metadata: {}, ...overrides,
  };
  return { ...emptyInstance('i'), registration, registered: true };
}

const policy = testOutbound({ instanceAuth: { defaultUserName: 'def', defaultPassword: 'pw', serviceMap: { billing: { userName: 'bill', userPassword: 'b' } } } });
const basic = (pair: string) => `Basic ${Buffer.from(pair).toString('base64')}`;

test('authorizationFor: metadata credentials, then per-application map, then defaults', () => {
  const withMeta = registered({ metadata: { 'user.name': 'test', 'user.password': 'drowssap' } });
  assert.is(policy.authorizationFor(withMeta, 'http://shop:8081/actuator/info'), 'Basic dGVzdDpkcm93c3NhcA==');
  assert.is(policy.authorizationFor(registered({ name: 'billing' }), 'http://shop:8081/actuator/env'), basic('bill:b'));
  assert.is(policy.authorizationFor(registered(), 'http://shop:8081/actuator/env'), basic('def:pw'));
});

test('authorizationFor: only the origins of the instance\'s own registration URLs get credentials', () => {
  const instance = registered();
  for (const own of ['http://shop:8081/x', 'http://SHOP:8081/y?z', 'http://shop:8080/', new URL('http://shop:8081/actuator/health')]) {
    assert.is(policy.authorizationFor(instance, own), basic('def:pw'), String(own));
  }
  for (const foreign of ['http://shop:8082/actuator/info', 'https://shop:8081/actuator/info', 'http://127.0.0.1:8081/', 'http://shop.evil:8081/', 'not a url', 'ftp://shop:8081/']) {
    assert.is(policy.authorizationFor(instance, foreign), undefined, String(foreign));
  }
  assert.is(policy.authorizationFor(emptyInstance('never-registered'), 'http://shop:8081/'), undefined);
});

test('isOwnOrigin compares origins, not prefixes', () => {
  const instance = registered({ managementUrl: null, serviceUrl: null });
  assert.ok(policy.isOwnOrigin(instance, 'http://shop:8081/anything'));
  assert.not.ok(policy.isOwnOrigin(instance, 'http://shop:8081@evil.example/'));
  assert.not.ok(policy.isOwnOrigin(instance, 'http://shop:8080/'));
});

test('refusalOf: nothing refused with ssrf-protection off; with it on, what a call would meet', async () => {
  assert.is(await testOutbound().refusalOf('http://127.0.0.1/'), undefined);
  const guarded = testOutbound({ ssrf: { enabled: true } });
  assert.match(String((await guarded.refusalOf('http://127.0.0.1:9/x'))?.message), /SSRF protection: 127\.0\.0\.1 is not a permitted address/);
  assert.match(String((await guarded.refusalOf('not a url'))?.message), /"not a url" is not a URL/);
  assert.match(String((await guarded.refusalOf(new URL('ftp://public.example/')))?.message), /disallowed scheme 'ftp'/);
  assert.is(await guarded.refusalOf('https://93.184.216.34/'), undefined);
});

test.run();
