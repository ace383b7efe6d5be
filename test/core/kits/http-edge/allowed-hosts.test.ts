import { request } from 'node:http';
import { hostname } from 'node:os';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { ALLOWED_HOSTS, type VigilPlugin } from '../../../../core/plugin-api.js';

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A request with exactly this `Host` (fetch would replace it with the URL's). */
function send(tk: TestKernel, method: string, path: string, headers: Record<string, string>): Promise<Answer> {
  const port = Number(new URL(tk.url).port);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) as Record<string, unknown> : {} });
      });
    });
    req.on('error', reject);
    req.end(headers['content-type'] ? '{"name":"rebound","healthUrl":"http://127.0.0.1:1/health"}' : undefined);
  });
}

function assertMisdirected(answer: Answer, host: string, path: string): void {
  assert.is(answer.status, 421);
  assert.equal(Object.keys(answer.body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
  assert.is(answer.body.error, 'Misdirected Request');
  assert.is(answer.body.status, 421);
  assert.is(answer.body.path, path);
  assert.is(answer.body.message, `this server does not answer to the host ${JSON.stringify(host)}; add it to server.allowed-hosts if it should`);
}

test('DNS rebinding: with auth off, a request for another host name gets 421 on every path and method, and changes nothing', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { 'log-level': 'info' } });
  try {
    const evil = { host: 'evil.example:8080', origin: 'http://evil.example:8080' };
    assertMisdirected(await send(tk, 'GET', '/instances', evil), 'evil.example', '/instances');
    assertMisdirected(await send(tk, 'GET', '/no/such/path?x=1', evil), 'evil.example', '/no/such/path');
    assertMisdirected(await send(tk, 'POST', '/instances', { ...evil, 'content-type': 'application/json' }), 'evil.example', '/instances');
    assertMisdirected(await send(tk, 'OPTIONS', '/instances', { host: 'EVIL.example.' }), 'evil.example', '/instances');
    assert.equal(tk.kernel.registry.list(), []);
    // A name that only ends like an allowed one is still another host.
    assertMisdirected(await send(tk, 'GET', '/instances', { host: `x${hostname()}` }), `x${hostname().toLowerCase()}`, '/instances');
    assertMisdirected(await send(tk, 'GET', '/instances', { host: 'localhost.evil.example' }), 'localhost.evil.example', '/instances');
    // A Host that is no host name is a bad request (RFC 9112 §3.2), never served.
    assert.is((await send(tk, 'GET', '/instances', { host: 'a b' })).status, 400);
    // The operator learns of it, once, not once per request.
    const warnings = tk.logs().filter((line) => line.includes('server.allowed-hosts'));
    assert.is(warnings.length, 1, tk.logs().join('\n'));
    assert.match(warnings[0]!, /421 for GET \/instances: this server does not answer to the host "evil\.example"/);
  } finally {
    await tk.stop();
  }
});

test('served by default: localhost and *.localhost, any IP address (v4 and v6), the machine\'s host name, with or without a port', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'] });
  const port = new URL(tk.url).port;
  try {
    for (const host of [`127.0.0.1:${port}`, '127.0.0.1', `localhost:${port}`, 'LOCALHOST.', 'dashboard.localhost:1',
      `[::1]:${port}`, '[::1]', '10.20.30.40:8080', '[fd00::5]:80', '192.0.2.1', hostname(), `${hostname().toUpperCase()}:${port}`]) {
      assert.is((await send(tk, 'GET', '/instances', { host })).status, 200, host);
    }
  } finally {
    await tk.stop();
  }
});

test('server.allowed-hosts adds names and *.domain patterns; * allows every host; a reload applies a new list', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { server: { 'allowed-hosts': ['vigil.example.com', '*.corp.example'] } } });
  try {
    assert.is((await send(tk, 'GET', '/instances', { host: 'vigil.example.com' })).status, 200);
    assert.is((await send(tk, 'GET', '/instances', { host: 'Vigil.Example.com:443' })).status, 200);
    assert.is((await send(tk, 'GET', '/instances', { host: 'a.b.corp.example' })).status, 200);
    assertMisdirected(await send(tk, 'GET', '/instances', { host: 'corp.example' }), 'corp.example', '/instances');
    assertMisdirected(await send(tk, 'GET', '/instances', { host: 'example.com' }), 'example.com', '/instances');
    // Still served: the built-in ones are always allowed.
    assert.is((await send(tk, 'GET', '/instances', { host: 'localhost' })).status, 200);

    const report = await tk.reload({ server: { 'allowed-hosts': ['*'] } });
    assert.equal(report, { applied: ['server'], restart: [], failed: [] });
    assert.is((await send(tk, 'GET', '/instances', { host: 'evil.example' })).status, 200);
    await tk.reload({ server: {} });
    assert.is((await send(tk, 'GET', '/instances', { host: 'vigil.example.com' })).status, 421);
  } finally {
    await tk.stop();
  }
});

test('a plugin contributes the hosts it is reached under (notify.base-url), read live', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'notify'], config: { notify: { 'base-url': 'https://status.example.org/vigil' } } });
  try {
    assert.is((await send(tk, 'GET', '/instances', { host: 'status.example.org' })).status, 200);
    assert.is((await send(tk, 'GET', '/instances', { host: 'other.example.org' })).status, 421);
    await tk.reload({ notify: { 'base-url': 'https://other.example.org' } });
    assert.is((await send(tk, 'GET', '/instances', { host: 'other.example.org' })).status, 200);
    assert.is((await send(tk, 'GET', '/instances', { host: 'status.example.org' })).status, 421);
  } finally {
    await tk.stop();
  }

  const contributor: VigilPlugin<never> = {
    name: 'reached-as',
    setup: (ctx) => ctx.services.contribute(ALLOWED_HOSTS, { hosts: () => ['Reached.Example', '[fd00::1]', 'not a host'] }),
  };
  const custom = await startTestKernel({ plugins: ['rest-api', contributor] });
  try {
    assert.is((await send(custom, 'GET', '/instances', { host: 'reached.example:80' })).status, 200);
    // A contributed value that names no host allows nothing.
    assert.is((await send(custom, 'GET', '/instances', { host: 'other.example' })).status, 421);
  } finally {
    await custom.stop();
  }
});

test('the name the daemon listens on is allowed', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { host: 'localhost' } });
  try {
    assert.is((await send(tk, 'GET', '/instances', { host: 'localhost' })).status, 200);
  } finally {
    await tk.stop();
  }
});

test.run();
