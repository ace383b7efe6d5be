import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeActuator } from '../../support/fake-actuator.js';
import { proxyKernel, registerDetected, streamRequest } from './helpers.js';

const CHUNK = 1024 * 1024;
const CHUNKS = 50;

test('a 50 MB binary download streams through byte-identical', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    const sent = createHash('sha256');
    fake.on('GET', '/heapdump', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(CHUNK * CHUNKS) });
        // Generated on the fly with backpressure, never held whole on either side.
        let left = CHUNKS;
        const pump = () => {
          while (left > 0) {
            const chunk = randomBytes(CHUNK);
            sent.update(chunk);
            left -= 1;
            if (left === 0) res.end(chunk);
            else if (!res.write(chunk)) return void res.once('drain', pump);
          }
        };
        pump();
      },
    });
    const reply = await streamRequest(tk.url, 'GET', `/instances/${id}/actuator/heapdump`, { accept: '*/*' });
    assert.is(reply.status, 200);
    assert.is(reply.error, undefined);
    assert.is(reply.bytes, CHUNK * CHUNKS);
    assert.is(reply.headers['content-type'], 'application/octet-stream');
    assert.is(reply.sha256, sent.digest('hex'));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test('a large request body streams up to the instance unchanged (chunked, no Content-Length)', async () => {
  const fake = await FakeActuator.start();
  const tk = await proxyKernel();
  try {
    const id = await registerDetected(tk, fake);
    fake.on('POST', '/env', { status: 200, body: 'stored', contentType: 'text/plain' });
    const sent = createHash('sha256');
    let left = 8;
    const body = new Readable({
      read() {
        if (left-- === 0) return void this.push(null);
        const chunk = randomBytes(CHUNK);
        sent.update(chunk);
        this.push(chunk);
      },
    });
    const reply = await streamRequest(tk.url, 'POST', `/instances/${id}/actuator/env`, { 'content-type': 'application/octet-stream' }, body);
    assert.is(reply.status, 200);
    const seen = fake.requestsTo('/env', 'POST').at(-1)!;
    assert.is(seen.body.length, 8 * CHUNK);
    assert.is(createHash('sha256').update(seen.body).digest('hex'), sent.digest('hex'));
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
