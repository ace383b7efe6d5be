import { createServer, request as httpRequest, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { proxyKernel, registerDetected, streamRequest, within } from './helpers.js';

/** A port nothing listens on: bound, then released. */
async function deadPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function assertJsonError(res: { status: number; json: unknown }, status: number): void {
  assert.is(res.status, status);
  const body = res.json as { status: number; error: string; message: string };
  assert.is(body.status, status);
  assert.type(body.message, 'string');
}

test('an instance slower than proxy.timeout gives 504 JSON', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ timeout: '150ms' });
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/env', { json: {}, delayMs: 5000 });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/env`);
    assertJsonError(res, 504);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('connection refused gives 502 JSON', async () => {
  const port = await deadPort();
  const tk = await proxyKernel();
  try {
    const { id } = await tk.kernel.registry.register({
      name: 'gone', managementUrl: `http://127.0.0.1:${port}/actuator`, healthUrl: `http://127.0.0.1:${port}/actuator/health`,
      serviceUrl: null, source: 'http-api', metadata: {},
    });
    const res = await call('GET', `${tk.url}/instances/${id}/actuator/health`);
    assertJsonError(res, 502);
  } finally {
    await tk.stop();
  }
});

test('a connection reset before the answer gives 502 JSON', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/env', { handler: (req) => req.socket.destroy() });
    assertJsonError(await call('GET', `${tk.url}/instances/${id}/actuator/env`), 502);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('an instance failing mid-body breaks the client connection instead of ending it cleanly', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/heapdump', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': '100000' });
        res.write(Buffer.alloc(1000), () => res.socket?.destroy());
      },
    });
    const reply = await streamRequest(tk.url, 'GET', `/instances/${id}/actuator/heapdump`);
    assert.is(reply.status, 200);
    assert.ok(reply.error, 'the client saw a complete response');
    assert.ok(reply.bytes < 100000);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('an idle body is cut after body-idle-timeout', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel({ 'body-idle-timeout': '100ms' });
  try {
    const id = await registerDetected(tk, fake);
    fake.on('GET', '/heapdump', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream' });
        res.write('first bytes, then silence');
      },
    });
    const reply = await streamRequest(tk.url, 'GET', `/instances/${id}/actuator/heapdump`);
    assert.is(reply.status, 200);
    assert.ok(reply.error);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

/** Serves an endless body with backpressure; resolves `closed` when the proxy hangs up. */
function endlessDownload(fake: FakeActuator): { started: Promise<void>; closed: Promise<void> } {
  let markStarted!: () => void;
  let markClosed!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  fake.on('GET', '/heapdump', {
    handler: (_req, res: ServerResponse) => {
      res.on('close', markClosed);
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      markStarted();
      const chunk = Buffer.alloc(64 * 1024, 7);
      const pump = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    },
  });
  return { started, closed };
}

test('a client leaving mid-download aborts the call to the instance', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    const { closed } = endlessDownload(fake);
    const { hostname, port } = new URL(tk.url);
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest({ host: hostname, port, path: `/instances/${id}/actuator/heapdump`, agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => undefined);
      req.on('close', resolve);
      req.on('timeout', reject);
      req.end();
    });
    await within(closed, 'the instance connection closing');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a client leaving before the answer aborts the call as well', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    let markClosed!: () => void;
    const closed = new Promise<void>((resolve) => (markClosed = resolve));
    let markSeen!: () => void;
    const seen = new Promise<void>((resolve) => (markSeen = resolve));
    fake.on('GET', '/env', { handler: (_req, res) => { res.on('close', markClosed); markSeen(); } });
    const { hostname, port } = new URL(tk.url);
    const req = httpRequest({ host: hostname, port, path: `/instances/${id}/actuator/env`, agent: false });
    req.on('error', () => undefined);
    req.end();
    await within(seen, 'the instance seeing the request');
    req.destroy();
    await within(closed, 'the instance connection closing');
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('stopping the kernel aborts in-flight proxy calls', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  let stopped = false;
  try {
    const id = await registerDetected(tk, fake);
    const { started, closed } = endlessDownload(fake);
    const { hostname, port } = new URL(tk.url);
    const req = httpRequest({ host: hostname, port, path: `/instances/${id}/actuator/heapdump`, agent: false }, (res) => res.resume());
    req.on('error', () => undefined);
    req.end();
    await within(started, 'the download starting');
    await tk.stop();
    stopped = true;
    await within(closed, 'the instance connection closing');
  } finally {
    if (!stopped) await tk.stop();
    await fake.close();
  }
});

test.run();
