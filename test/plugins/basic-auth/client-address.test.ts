import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { basicAuthSchema } from '../../../plugins/basic-auth/config.js';
import { clientAddress, parseTrustedProxies } from '../../../plugins/basic-auth/client-address.js';

test('trusted-proxies: X-Forwarded-For counts only from those peers, read from the right, skipping trusted hops', () => {
  const trusted = parseTrustedProxies(['10.0.0.0/8', '::1', '192.0.2.10']);
  assert.is(clientAddress('10.1.2.3', '198.51.100.7', trusted), '198.51.100.7');
  assert.is(clientAddress('::ffff:10.1.2.3', '198.51.100.7', trusted), '198.51.100.7');
  // A client cannot choose its address by sending its own header: the proxy appends the peer it saw.
  assert.is(clientAddress('10.1.2.3', '1.1.1.1, 198.51.100.7', trusted), '198.51.100.7');
  assert.is(clientAddress('10.1.2.3', '198.51.100.7, 10.9.9.9, 192.0.2.10', trusted), '198.51.100.7');
  assert.is(clientAddress('::1', '2001:db8::5', trusted), '2001:db8::5');
  assert.is(clientAddress('::1', '[2001:db8::5]:4711', trusted), '2001:db8::5');
  assert.is(clientAddress('10.1.2.3', '198.51.100.7:4711', trusted), '198.51.100.7');
  // Every hop trusted: the leftmost is the client.
  assert.is(clientAddress('10.1.2.3', '10.0.0.5, 10.0.0.6', trusted), '10.0.0.5');
  // Garbage stops the walk at the last address known to be real.
  assert.is(clientAddress('10.1.2.3', '198.51.100.7, not-an-ip, 10.0.0.6', trusted), '10.0.0.6');
  assert.is(clientAddress('10.1.2.3', 'not-an-ip', trusted), '10.1.2.3');
  // No header, or a peer that is not trusted: the peer.
  assert.is(clientAddress('10.1.2.3', undefined, trusted), '10.1.2.3');
  assert.is(clientAddress('203.0.113.9', '198.51.100.7', trusted), '203.0.113.9');
  assert.is(clientAddress('203.0.113.9', '198.51.100.7', parseTrustedProxies([])), '203.0.113.9');
});

test('trusted-proxies must be IP addresses or CIDRs', async () => {
  const problems = await basicAuthSchema.validate({ users: [{ username: 'a', password: 'b' }], 'trusted-proxies': ['10.0.0.0/8', 'proxy.example', '10.0.0.0/33'] }, { abortEarly: false })
    .then(() => [], (error: { errors: string[] }) => error.errors);
  assert.equal(problems, [
    'trusted-proxies[1] must be an IP address or a CIDR such as 10.0.0.0/8 (got proxy.example)',
    'trusted-proxies[2] must be an IP address or a CIDR such as 10.0.0.0/8 (got 10.0.0.0/33)',
  ]);
});

test.run();
