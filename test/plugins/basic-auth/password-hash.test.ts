import { randomBytes, scryptSync } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { hashPassword, isHashed, runHashPasswordCommand, verifyPassword } from '../../../plugins/basic-auth/password-hash.js';
import { parseScrypt } from '../../../plugins/basic-auth/scrypt-hash.js';

const FORMAT = /^scrypt\$N=16384,r=8,p=1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/;

test('hashPassword: the documented format, a new salt every time', async () => {
  const [a, b] = await Promise.all([hashPassword('correct horse'), hashPassword('correct horse')]);
  assert.match(a, FORMAT);
  assert.match(b, FORMAT);
  assert.is.not(a, b);
  assert.ok(isHashed(a));
  assert.is(isHashed('correct horse'), false);
});

test('verifyPassword: round trip, wrong password, Unicode normalisation', async () => {
  const hash = await hashPassword('pässwörd');
  assert.is(await verifyPassword('pässwörd', hash), true);
  assert.is(await verifyPassword('passwörd', hash), false);
  assert.is(await verifyPassword('', hash), false);
  // The same text typed as decomposed characters (a + combining diaeresis) is the same password.
  assert.is(await verifyPassword('pa\u0308sswo\u0308rd', hash), true);
});

test('verifyPassword: malformed or out-of-bounds hashes are false, never a throw', async () => {
  const hash = await hashPassword('x');
  const [, , salt, key] = hash.split('$');
  for (const bad of [
    'x', 'scrypt$', `scrypt$N=16384,r=8,p=1$${salt}`, `scrypt$N=1000,r=8,p=1$${salt}$${key}`, `scrypt$N=16384,r=0,p=1$${salt}$${key}`,
    `scrypt$N=16384,r=8,p=17$${salt}$${key}`, `scrypt$N=1048576,r=8,p=1$${salt}$${key}`, `scrypt$N=16384,r=8,p=1$AAAA$${key}`,
    `scrypt$N=16384,r=8,p=1$${salt}$AAAA`, `scrypt$N=16384,r=8,p=1$${salt}$${key}!`,
  ]) {
    assert.is(parseScrypt(bad), undefined, bad);
    assert.is(await verifyPassword('x', bad), false, bad);
  }
});

test('verifyPassword: the cost stored in the hash is the one used', async () => {
  // A hash made elsewhere with a lower cost (e.g. an older Vigil) still verifies.
  const salt = randomBytes(16);
  const key = scryptSync('pw', salt, 32, { N: 1024, r: 8, p: 1 });
  const encoded = `scrypt$N=1024,r=8,p=1$${salt.toString('base64')}$${key.toString('base64')}`;
  assert.is(parseScrypt(encoded)?.N, 1024);
  assert.is(await verifyPassword('pw', encoded), true);
  assert.is(await verifyPassword('pw', encoded.replace('N=1024', 'N=2048')), false);
});

function io(isTTY: boolean, rawMode?: (mode: boolean) => void) {
  const stdin = new PassThrough();
  if (rawMode) Object.assign(stdin, { setRawMode: rawMode });
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const text = (stream: PassThrough) => () => String(stream.read() ?? '');
  return { io: { stdin, stdout, stderr, isTTY }, stdin, out: text(stdout), err: text(stderr) };
}

test('hash-password: the first line of stdin becomes one hash line on stdout', async () => {
  const t = io(false);
  t.stdin.end('s3cret pass\nignored second line\n');
  assert.is(await runHashPasswordCommand(t.io), 0);
  const out = t.out();
  assert.match(out, /^scrypt\$[^\n]+\n$/);
  assert.is(await verifyPassword('s3cret pass', out.trim()), true);
  assert.is(t.err(), '');
});

test('hash-password: CRLF and a missing final newline are handled', async () => {
  const crlf = io(false);
  crlf.stdin.end('windows\r\n');
  assert.is(await runHashPasswordCommand(crlf.io), 0);
  assert.is(await verifyPassword('windows', crlf.out().trim()), true);
  const bare = io(false);
  bare.stdin.write(Buffer.from('no-newline'));
  bare.stdin.end();
  assert.is(await runHashPasswordCommand(bare.io), 0);
  assert.is(await verifyPassword('no-newline', bare.out().trim()), true);
});

test('hash-password: empty input is exit 1 with a message', async () => {
  for (const input of ['', '\n']) {
    const t = io(false);
    t.stdin.end(input);
    assert.is(await runHashPasswordCommand(t.io), 1);
    assert.is(t.out(), '');
    assert.match(t.err(), 'hash-password: no password given');
  }
});

test('hash-password on a terminal: asked twice with echo off, line editing works', async () => {
  const modes: boolean[] = [];
  const t = io(true, (mode) => modes.push(mode));
  // Backspace removes the stray "x"; Enter arrives as \r in raw mode.
  t.stdin.write('topx\u007fsecret\r');
  t.stdin.write('topsecret\r');
  assert.is(await runHashPasswordCommand(t.io), 0);
  assert.equal(modes, [true, false]);
  assert.is(await verifyPassword('topsecret', t.out().trim()), true);
  assert.is(t.err(), 'Password: \nRepeat password: \nUse it as a password (or token-hash) in the basic-auth section of the config, in quotes.\n');
});

test('hash-password on a terminal: different answers are exit 1, Ctrl-C is 130, Ctrl-D is no password', async () => {
  const mismatch = io(true, () => undefined);
  mismatch.stdin.write('one\rtwo\r');
  assert.is(await runHashPasswordCommand(mismatch.io), 1);
  assert.match(mismatch.err(), 'the passwords do not match');

  const interrupted = io(true, () => undefined);
  interrupted.stdin.write('abc\u0003');
  assert.is(await runHashPasswordCommand(interrupted.io), 130);
  const again = io(true, () => undefined);
  again.stdin.write('abc\r\u0003');
  assert.is(await runHashPasswordCommand(again.io), 130);

  const eof = io(true, () => undefined);
  eof.stdin.write('\u0004');
  assert.is(await runHashPasswordCommand(eof.io), 1);
  assert.is(eof.out(), '');
});

test('hash-password on a terminal without raw mode: plain lines, still asked twice', async () => {
  const t = io(true);
  t.stdin.write('visible\nvisible\n');
  assert.is(await runHashPasswordCommand(t.io), 0);
  assert.is(await verifyPassword('visible', t.out().trim()), true);
  assert.match(t.err(), /^Password: Repeat password: Use it/);
});

test.run();
