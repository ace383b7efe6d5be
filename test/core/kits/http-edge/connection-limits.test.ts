import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { getFrom } from '../../../support/from-address.js';
import { kernelSchema } from '../../../../config/kernel-schema.js';
import { openFileLimit, openFileWarning } from '../../../../core/kits/http-edge/open-file-limit.js';

/** How a slow-header connection ended, as its client saw it. */
interface SlowEnd {
  /** Everything the server sent. */
  readonly received: string;
}

/**
 * A slowloris client: it sends a request's headers one byte at a time and never finishes them.
 * `allowHalfOpen` keeps it from closing when the server ends its side, as an attacker would, so
 * `ended` resolves only once the server really closed the connection (its file descriptor freed).
 */
class SlowClient {
  readonly ended: Promise<SlowEnd>;
  readonly #socket: Socket;

  constructor(port: number, localAddress: string) {
    const head = 'GET /instances HTTP/1.1\r\nHost: localhost\r\nX-Slow: ';
    this.#socket = connect({ host: '127.0.0.1', port, localAddress, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let sent = 0;
    const trickle = setInterval(() => {
      if (this.#socket.writable) this.#socket.write(sent < head.length ? head[sent] ?? 'a' : 'a');
      sent += 1;
    }, 50);
    this.#socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    this.#socket.on('error', () => undefined); // the reset of a refused connection; `close` follows
    this.ended = new Promise((resolve) => this.#socket.once('close', () => {
      clearInterval(trickle);
      resolve({ received: Buffer.concat(chunks).toString('utf8') });
    }));
  }

  destroy(): void {
    this.#socket.destroy();
  }
}

function portOf(tk: TestKernel): number {
  return Number(new URL(tk.url).port);
}

const TIMED_OUT = /^HTTP\/1\.1 408 Request Timeout\r\n[^]*"message":"the request was not received in time"/;

test('slowloris from one address: past max-connections-per-address its connections are refused at once, others are served, the slow ones are closed after headers-timeout', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api'],
    config: { 'log-level': 'info', server: { 'max-connections': 100, 'max-connections-per-address': 8, 'per-address-exempt': [], 'headers-timeout': '3s' } },
  });
  const slow = Array.from({ length: 20 }, () => new SlowClient(portOf(tk), '127.0.0.1'));
  try {
    // The twelve over the limit are closed without a byte, while the eight let in are still being read.
    let refused = 0;
    const twelveRefused = new Promise<void>((resolve) => {
      for (const client of slow) {
        void client.ended.then((end) => {
          if (end.received === '') refused += 1;
          if (refused === 12) resolve();
        });
      }
    });
    await twelveRefused;
    const open = new Set(slow);
    for (const client of slow) void client.ended.then(() => open.delete(client));
    // A client at another address is served meanwhile, and so is a second request from it.
    const served = await getFrom('127.1.0.1', portOf(tk), '/instances', {}, 10_000);
    assert.is(served.status, 200, served.body);
    assert.is(open.size, 8, 'the eight slow connections let in are still open while another address is served');
    assert.is((await getFrom('127.1.0.1', portOf(tk), '/instances', {}, 10_000)).status, 200);

    const ends = await Promise.all(slow.map((client) => client.ended));
    const timedOut = ends.filter((end) => TIMED_OUT.test(end.received));
    assert.is(timedOut.length, 8, ends.map((end) => end.received).join('\n---\n'));
    assert.is(ends.filter((end) => end.received === '').length, 12);
    const warnings = tk.logs().filter((line) => line.includes('server.max-connections-per-address'));
    assert.is(warnings.length, 1, tk.logs().join('\n'));
    assert.match(warnings[0]!, /connection from 127\.0\.0\.1 refused: it has 8 open \(server\.max-connections-per-address\)/);
  } finally {
    for (const client of slow) client.destroy();
    await tk.stop();
  }
});

test('max-connections bounds them all: a new connection is refused while slow ones fill it, and served once headers-timeout has closed them', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api'],
    config: { 'log-level': 'info', server: { 'max-connections': 12, 'max-connections-per-address': 4, 'per-address-exempt': [], 'headers-timeout': '1s' } },
  });
  const addresses = ['127.0.0.1', '127.1.0.1', '127.1.0.2'];
  const slow = addresses.flatMap((address) => Array.from({ length: 4 }, () => new SlowClient(portOf(tk), address)));
  try {
    const refused = await getFrom('127.1.0.3', portOf(tk), '/instances', {}, 10_000).then(
      (reply) => `answered ${reply.status}`,
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    );
    assert.ok(['ECONNRESET', 'socket hang up'].includes(refused), refused);
    const ends = await Promise.all(slow.map((client) => client.ended));
    assert.is(ends.filter((end) => TIMED_OUT.test(end.received)).length, 12, ends.map((end) => end.received).join('\n---\n'));
    assert.is((await getFrom('127.1.0.3', portOf(tk), '/instances', {}, 10_000)).status, 200);
    assert.ok(tk.logs().some((line) => /connection from 127\.1\.0\.3 refused: 12 connections are open \(server\.max-connections\)/.test(line)), tk.logs().join('\n'));
  } finally {
    for (const client of slow) client.destroy();
    await tk.stop();
  }
});

test('loopback is exempt from the per-address limit by default: a local reverse proxy carries every client on one address', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { server: { 'max-connections-per-address': 5 } } });
  const many = Array.from({ length: 10 }, () => new SlowClient(portOf(tk), '127.0.0.1'));
  try {
    assert.is((await getFrom('127.0.0.1', portOf(tk), '/instances', {}, 10_000)).status, 200);
  } finally {
    for (const client of many) client.destroy();
    await Promise.all(many.map((client) => client.ended));
    await tk.stop();
  }
});

test('defaults: headers-timeout 10 s, 10,000 connections, 256 per address, loopback exempt, no extra allowed host', async () => {
  const settings = await kernelSchema.validate({});
  assert.equal(settings.server, {
    'max-connections': 10_000,
    'max-connections-per-address': 256,
    'per-address-exempt': ['127.0.0.0/8', '::1'],
    'headers-timeout': 10_000,
    'allowed-hosts': [],
  });
});

test('a warning when max-connections would leave too few open files for the rest of the daemon', async () => {
  const limits = (soft: string) => `Limit                     Soft Limit           Hard Limit           Units\nMax open files            ${soft}                65536                files\n`;
  assert.is(openFileLimit(() => limits('65536')), 65536);
  assert.is(openFileLimit(() => limits('unlimited')), undefined);
  assert.is(openFileLimit(() => { throw new Error('no /proc here'); }), undefined);
  assert.is(openFileWarning(10_000, 65_536), undefined);
  assert.is(openFileWarning(10_000, undefined), undefined);
  assert.is(openFileWarning(10_000, 4096), 'server.max-connections (10000) leaves too few of the 4096 open files this process may have'
    + ' for calls to instances and notification deliveries: lower it, or raise the limit (LimitNOFILE in the systemd unit, ulimit -n)');
  const limit = openFileLimit();
  if (limit === undefined) return; // not Linux
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { 'log-level': 'warn', server: { 'max-connections': limit } } });
  try {
    assert.ok(tk.logs().some((line) => line.includes(`server.max-connections (${limit}) leaves too few of the ${limit} open files`)), tk.logs().join('\n'));
  } finally {
    await tk.stop();
  }
});

test('a reload of server applies to new connections: a higher max-connections-per-address lets the next one in', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api'],
    config: { 'log-level': 'info', server: { 'max-connections-per-address': 2, 'per-address-exempt': [], 'headers-timeout': '60s' } },
  });
  const slow = Array.from({ length: 3 }, () => new SlowClient(portOf(tk), '127.0.0.1'));
  try {
    // One of the three is refused at once, so the other two hold the address's two connections.
    await Promise.race(slow.map((client) => client.ended.then((end) => (end.received === '' ? undefined : new Promise(() => undefined)))));
    const refused = await getFrom('127.0.0.1', portOf(tk), '/instances', {}, 10_000).then(
      (reply) => `answered ${reply.status}`,
      (error: NodeJS.ErrnoException) => error.code ?? error.message,
    );
    assert.ok(['ECONNRESET', 'socket hang up'].includes(refused), refused);
    const report = await tk.reload({ 'log-level': 'info', server: { 'max-connections-per-address': 4, 'per-address-exempt': [], 'headers-timeout': '60s' } });
    assert.equal(report, { applied: ['server'], restart: [], failed: [] });
    assert.is((await getFrom('127.0.0.1', portOf(tk), '/instances', {}, 10_000)).status, 200);
  } finally {
    for (const client of slow) client.destroy();
    await Promise.all(slow.map((client) => client.ended));
    await tk.stop();
  }
});

test.run();
