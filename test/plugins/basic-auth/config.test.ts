import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin } from '../../../bin/testing.js';
import { basicAuthSchema } from '../../../plugins/basic-auth/config.js';
import { hashPassword } from '../../../plugins/basic-auth/password-hash.js';
import { hashToken } from '../../../plugins/basic-auth/token-hash.js';

const HEX = '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08';
const check = (section: unknown) => checkPlugin('basic-auth', { 'basic-auth': section });

const FLOOD_DEFAULTS = {
  'max-concurrent-verifications': 1,
  'max-queued-verifications': 64,
  'failures-per-address': 10,
  'failure-refill-interval': 5000,
  'tracked-addresses': 10_000,
  'trusted-proxies': [],
};

test('defaults: realm Vigil, no role (admin unless an access section decides), the flood limits', async () => {
  const config = await basicAuthSchema.validate({ users: [{ username: ' admin ', password: 'pw' }] });
  assert.equal(config, { realm: 'Vigil', 'anonymous-probes': false, users: [{ username: 'admin', password: 'pw' }], tokens: [], ...FLOOD_DEFAULTS });
});

test('flood limits: durations, whole numbers in range, each named when wrong', async () => {
  const users = [{ username: 'a', password: 'b' }];
  const given = await basicAuthSchema.validate({
    users,
    'max-concurrent-verifications': 2,
    'max-queued-verifications': 0,
    'failures-per-address': 3,
    'failure-refill-interval': '1m',
    'tracked-addresses': 100,
  });
  assert.equal(given['failure-refill-interval'], 60_000);
  assert.is(given['max-queued-verifications'], 0);
  assert.equal(await check({
    users,
    'max-concurrent-verifications': 0,
    'max-queued-verifications': 1.5,
    'failures-per-address': -1,
    'failure-refill-interval': 'soon',
    'tracked-addresses': 'many',
  }), [
    'plugin "basic-auth": basic-auth.max-concurrent-verifications: must be greater than or equal to 1',
    'plugin "basic-auth": basic-auth.max-queued-verifications: must be a whole number',
    'plugin "basic-auth": basic-auth.failures-per-address: must be greater than or equal to 1',
    'plugin "basic-auth": basic-auth.failure-refill-interval: must be a duration such as 250ms, 10s, 1m, 1h or PT10S (got soon)',
    'plugin "basic-auth": basic-auth.tracked-addresses: must be a whole number',
  ]);
  assert.equal(await check({ users, 'failures-per-adress': 3 }), ['plugin "basic-auth": basic-auth: unknown key(s): failures-per-adress (did you mean "failures-per-address"?)']);
});

test('a plain token is replaced by its SHA-256 during validation; token-hash forms are canonical', async () => {
  const config = await basicAuthSchema.validate({
    tokens: [
      { name: 'ci', token: 'test', role: 'registration' },
      { name: 'bare', 'token-hash': HEX.toUpperCase() },
    ],
  });
  assert.equal(config.tokens, [
    { name: 'ci', 'token-hash': `sha256$${HEX}`, role: 'registration' },
    { name: 'bare', 'token-hash': `sha256$${HEX}` },
  ]);
  assert.not.ok(JSON.stringify(config).includes('"test"'));
  // YAML reads an all-digit token as a number; it is hashed as the text it was written as.
  const numeric = await basicAuthSchema.validate({ tokens: [{ name: 'digits', token: 123456 }] });
  assert.equal(numeric.tokens, [{ name: 'digits', 'token-hash': hashToken('123456') }]);
});

test('a section with neither users nor tokens is refused, as is a missing one', async () => {
  const problem = 'plugin "basic-auth": basic-auth: at least one entry in users or tokens is required';
  assert.equal(await check({}), [problem]);
  assert.equal(await check({ users: [], tokens: [] }), [problem]);
  assert.equal(await checkPlugin('basic-auth', {}), [problem]);
});

test('users: missing fields, duplicates, bad roles, colons and malformed hashes are named', async () => {
  assert.equal(await check({ users: [{ username: 'admin' }] }), [
    'plugin "basic-auth": basic-auth.users[0].password: is required (plain text, or a hash from `vigil hash-password`)',
  ]);
  assert.equal(await check({
    users: [
      { username: 'ops', password: 'a' },
      { username: 'ops', password: 'scrypt$N=16384,r=8,p=1$broken' },
      { username: 'a:b', password: 'x', role: 'root' },
      { password: 'x', extra: 1 },
    ],
  }), [
    'plugin "basic-auth": basic-auth.users[1].password: starts like a scrypt hash but is malformed; make a new one with `vigil hash-password`',
    'plugin "basic-auth": basic-auth.users[2].username: must not contain ":" or control characters',
    'plugin "basic-auth": basic-auth.users[2].role: must be one of: viewer, operator, admin, registration, metrics',
    'plugin "basic-auth": basic-auth.users[3].username: is required',
    'plugin "basic-auth": basic-auth.users[3]: unknown key(s): extra',
    'plugin "basic-auth": basic-auth.users: username(s) listed twice: ops',
  ]);
  assert.equal(await check({ users: [{ username: 'ops', password: '' }] }), [
    'plugin "basic-auth": basic-auth.users[0].password: is required (plain text, or a hash from `vigil hash-password`)',
  ]);
});

test('tokens: exactly one of token and token-hash, valid hashes, unique names', async () => {
  assert.equal(await check({
    tokens: [
      { name: 'neither' },
      { name: 'both', token: 'a', 'token-hash': HEX },
      { name: 'short', 'token-hash': 'abc' },
      { name: 'neither' , token: '' },
    ],
  }), [
    'plugin "basic-auth": basic-auth.tokens[0]: needs either token-hash or token (not both)',
    'plugin "basic-auth": basic-auth.tokens[1]: needs either token-hash or token (not both)',
    'plugin "basic-auth": basic-auth.tokens[2].token-hash: must be sha256$<64 hex digits>, 64 hex digits, or a hash from `vigil hash-password`',
    'plugin "basic-auth": basic-auth.tokens[3].token: must not be empty',
    'plugin "basic-auth": basic-auth.tokens: token name(s) listed twice: neither',
  ]);
  assert.equal(await check({ tokens: [{ 'token-hash': await hashPassword('t') }] }), [
    'plugin "basic-auth": basic-auth.tokens[0].name: is required (it names the token in logs)',
  ]);
});

test('realm and the section itself: shape errors and unknown keys', async () => {
  const users = [{ username: 'a', password: 'b' }];
  assert.equal(await check({ users, realm: 'say "hi"' }), [
    'plugin "basic-auth": basic-auth.realm: must not contain quotes, backslashes or control characters',
  ]);
  assert.equal(await check({ users, user: [] }), ['plugin "basic-auth": basic-auth: unknown key(s): user (did you mean "users"?)']);
  assert.equal(await check('admin:pw'), ['plugin "basic-auth": basic-auth: must be a mapping of keys to values']);
  assert.equal(await check({ users, realm: 'Ops' }), []);
  assert.equal(await check({ users: 'admin' }), ['plugin "basic-auth": basic-auth.users: must be a list of users']);
  assert.equal(await check({ users, tokens: 5 }), ['plugin "basic-auth": basic-auth.tokens: must be a list of tokens']);
  assert.equal(await check({ users: [null, 'x'], tokens: ['t'] }), [
    'plugin "basic-auth": basic-auth.users[0]: must not be empty',
    'plugin "basic-auth": basic-auth.users[1]: must be a mapping with username, password and optionally role',
    'plugin "basic-auth": basic-auth.tokens[0]: must be a mapping with name, token or token-hash, and optionally role',
  ]);
});

test('an unset ${VAR} in a password is a config error naming the variable', async () => {
  // The kernel interpolates; this pins that a missing secret can never become a literal password.
  const problems = await checkPlugin('basic-auth', { 'basic-auth': { users: [{ username: 'admin', password: '${VIGIL_TEST_UNSET_PASSWORD}' }] } });
  assert.ok(problems.some((line) => line.includes('VIGIL_TEST_UNSET_PASSWORD')), problems.join('\n'));
});

test.run();
