import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { createClient } from 'redis';
import type { Daemon } from '../../support/daemon-process.js';
import { Fleet } from '../../support/fleet.js';
import { call, eventually } from '../../support/http.js';
import { freePort, startRedis, type RedisProcess } from '../../support/redis-server.js';
import { requireBinary } from '../../support/require-binary.js';
import { instancesOf, register, startNode, stopAll } from './support.js';

const { test, path: redisServer } = requireBinary('redis-server', 'apt-get install redis-server');
const openssl = requireBinary('openssl', 'apt-get install openssl');

/**
 * The advice of docs/cluster.md for the Redis Vigil uses (Redis access equals admin), run as written: an
 * ACL user limited to Vigil's keys and channels and without the dangerous commands, and TLS.
 */
let redis: RedisProcess | undefined;
let fleet: Fleet | undefined;
const running: Daemon[] = [];

test.before(async () => {
  fleet = await Fleet.start();
});

test.after.each(async () => {
  await stopAll(running.splice(0));
  await redis?.stop();
  redis = undefined;
});

test.after(async () => {
  await fleet?.close();
});

test('an ACL user limited to ~vigil:* and &vigil:*, without @dangerous: the cluster works, and that user can touch nothing else', async () => {
  redis = await startRedis(redisServer, { args: ['--user', 'vigil', 'on', '>vigil-acl-pw', '~vigil:*', '&vigil:*', '+@all', '-@dangerous', '--user', 'default', 'off'] });
  const url = `redis://vigil:vigil-acl-pw@127.0.0.1:${redis.port}`;
  const nodes = [await startNode('n1', { redisUrl: url }), await startNode('n2', { redisUrl: url })];
  running.push(...nodes);
  const id = await register(nodes[0]!, fleet!.registration(801));
  await eventually(async () => (await instancesOf(nodes[1]!)).some((i) => i.id === id && i.statusInfo.status === 'UP'), 'registered on one node, checked and seen on the other');
  // POST /applications reaches the other node over the pub/sub channel (within &vigil:*).
  assert.is((await call('POST', `${nodes[1]!.url}/applications`)).status, 200);
  for (const node of nodes) assert.equal(node.logs().filter((line) => /NOPERM|could not pass the refresh/.test(line)), [], 'no command refused by the ACL');
  const client = createClient({ url });
  await client.connect();
  try {
    assert.match(String(await client.set('other:key', '1').catch((error: Error) => error.message)), /NOPERM/);
    assert.match(String(await client.flushAll().catch((error: Error) => error.message)), /NOPERM/);
    assert.match(String(await client.keys('*').catch((error: Error) => error.message)), /NOPERM/);
  } finally {
    client.destroy();
  }
});

openssl.test('TLS: rediss:// with the server\'s CA given to Node (NODE_EXTRA_CA_CERTS), and no plain port', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-redis-tls-'));
  const previous = process.env.NODE_EXTRA_CA_CERTS;
  try {
    const run = (...args: string[]) => execFileSync(openssl.path, args, { cwd: dir, stdio: 'ignore' });
    run('req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=vigil test CA');
    run('req', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'redis.key', '-out', 'redis.csr', '-subj', '/CN=127.0.0.1');
    writeFileSync(join(dir, 'san.cnf'), 'subjectAltName=IP:127.0.0.1\n');
    run('x509', '-req', '-in', 'redis.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'redis.pem', '-days', '2', '-extfile', 'san.cnf');
    const tlsPort = await freePort();
    redis = await startRedis(redisServer, {
      args: ['--port', '0', '--tls-port', String(tlsPort), '--tls-cert-file', join(dir, 'redis.pem'), '--tls-key-file', join(dir, 'redis.key'),
        '--tls-ca-cert-file', join(dir, 'ca.pem'), '--tls-auth-clients', 'no'],
    });
    // The daemons inherit the test's environment: the CA is what a systemd EnvironmentFile would set.
    process.env.NODE_EXTRA_CA_CERTS = join(dir, 'ca.pem');
    const url = `rediss://127.0.0.1:${tlsPort}`;
    const nodes = [await startNode('n1', { redisUrl: url }), await startNode('n2', { redisUrl: url })];
    running.push(...nodes);
    const id = await register(nodes[1]!, fleet!.registration(802));
    await eventually(async () => (await instancesOf(nodes[0]!)).some((i) => i.id === id && i.statusInfo.status === 'UP'), 'registered over TLS and seen on the other node');
  } finally {
    if (previous === undefined) delete process.env.NODE_EXTRA_CA_CERTS;
    else process.env.NODE_EXTRA_CA_CERTS = previous;
    await stopAll(running.splice(0));
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
