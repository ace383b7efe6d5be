import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AllowedHosts, hostOfHeader, isHostPattern } from '../../../../core/kits/http-edge/allowed-hosts.js';

test('Host parsing: port, brackets, case and a trailing dot; anything else is no host', () => {
  assert.is(hostOfHeader('Example.COM:8080'), 'example.com');
  assert.is(hostOfHeader('example.com.'), 'example.com');
  assert.is(hostOfHeader('[::1]:80'), '::1');
  assert.is(hostOfHeader('[FD00::1]'), 'fd00::1');
  assert.is(hostOfHeader('127.0.0.1:1'), '127.0.0.1');
  for (const bad of ['a b', 'example.com:x', 'example.com:80:80', '[::1', '::1', 'ex/ample', 'ex@ample', '', ':80', 'a..b']) {
    assert.is(hostOfHeader(bad), undefined, bad);
  }
  for (const good of ['*', 'vigil.example.com', '*.example.com', '10.0.0.1', '::1', '[::1]', 'box', 'under_score.example']) assert.ok(isHostPattern(good), good);
  for (const bad of ['', 'vigil.example.com:8080', 'http://vigil.example.com', '*example.com', 'a.*.example', '*.', 'a b']) assert.not.ok(isHostPattern(bad), bad);
});

test('the listen host is allowed; a request without Host (HTTP/1.0) names no host and passes', () => {
  const allowed = new AllowedHosts({ configured: [], listenHost: 'vigil-box.internal', contributed: () => [] });
  assert.ok(allowed.allows('vigil-box.internal:8080'));
  assert.ok(allowed.allows(undefined));
  assert.not.ok(allowed.allows('other-box.internal'));
});

test('a Host served once is served again without parsing, until the list changes; many distinct ones stay right', () => {
  const allowed = new AllowedHosts({ configured: ['a.example'], listenHost: '127.0.0.1', contributed: () => [] });
  assert.ok(allowed.allows('a.example:8080'));
  for (let i = 0; i < 200; i++) assert.ok(allowed.allows(`10.0.${i}.1:80`));
  assert.ok(allowed.allows('a.example:8080'));
  allowed.configure([]);
  assert.not.ok(allowed.allows('a.example:8080'));
  assert.ok(allowed.allows('10.0.7.1:80'));
});

test.run();
