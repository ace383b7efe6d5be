import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAuthorization } from '../../../plugins/basic-auth/authorization-header.js';
import { canonicalTokenHash, hashToken } from '../../../plugins/basic-auth/token-hash.js';
import { VerificationCache } from '../../../plugins/basic-auth/verification-cache.js';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

test('parseAuthorization: Basic with UTF-8, colons in the password, any scheme case', () => {
  assert.equal(parseAuthorization(`Basic ${b64('admin:pa:ss')}`), { kind: 'basic', username: 'admin', password: 'pa:ss' });
  assert.equal(parseAuthorization(`basic   ${b64('jörg:ü')}  `), { kind: 'basic', username: 'jörg', password: 'ü' });
  assert.equal(parseAuthorization(`BASIC ${b64('a:')}`), { kind: 'basic', username: 'a', password: '' });
});

test('parseAuthorization: Bearer tokens (RFC 6750 syntax)', () => {
  assert.equal(parseAuthorization('Bearer abc.DEF-123_~+/=='), { kind: 'bearer', token: 'abc.DEF-123_~+/==' });
  assert.equal(parseAuthorization('bearer xyz'), { kind: 'bearer', token: 'xyz' });
  for (const bad of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer a=b']) {
    assert.equal(parseAuthorization(bad), { kind: 'malformed', bearer: true }, bad);
  }
});

test('parseAuthorization: absent, empty and malformed headers', () => {
  assert.equal(parseAuthorization(undefined), { kind: 'none' });
  assert.equal(parseAuthorization('   '), { kind: 'none' });
  for (const bad of [
    'Basic', 'Basic !!!not-base64', `Basic ${b64('nocolon')}`, `Basic ${b64(':password')}`, 'Basic /w==', 'Basic YWJj', 'Basic YQ',
    `Digest ${b64('a:b')}`, `${b64('a:b')}`, `Basic ${b64('a:b')} extra`,
  ]) {
    assert.equal(parseAuthorization(bad), { kind: 'malformed', bearer: false }, bad);
  }
});

test('token hashes: sha256 forms are canonicalised, scrypt kept, others refused', () => {
  const hex = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
  assert.is(hashToken('test'), `sha256$${hex}`);
  assert.is(canonicalTokenHash(hex.toUpperCase()), `sha256$${hex}`);
  assert.is(canonicalTokenHash(` sha256$${hex} `), `sha256$${hex}`);
  for (const bad of ['', 'sha256$abc', hex.slice(1), 'scrypt$N=16384,r=8,p=1$x$y', 'md5$abc']) assert.is(canonicalTokenHash(bad), undefined, bad);
});

test('verification cache: hit, expiry, LRU eviction', () => {
  let now = 1000;
  const cache = new VerificationCache<string>(2, 100, () => now);
  assert.is(cache.get('a'), undefined);
  cache.set('a', 'A');
  cache.set('b', 'B');
  assert.is(cache.get('a'), 'A');
  // "a" was used last, so adding "c" evicts "b".
  cache.set('c', 'C');
  assert.is(cache.size, 2);
  assert.is(cache.get('b'), undefined);
  assert.is(cache.get('a'), 'A');
  now += 100;
  assert.is(cache.get('a'), undefined);
  assert.is(cache.size, 1);
  cache.set('c', 'C2');
  assert.is(cache.get('c'), 'C2');
});

test.run();
