import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { kernel, register, registration } from './client.js';

/** A raw connection that collects every byte, so the framing itself can be checked. */
function rawStream(url: string, requestHead: string): { socket: Socket; bytes: () => string; until: (text: string) => Promise<void> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  const waiters = new Set<() => void>();
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
    for (const waiter of [...waiters]) waiter();
  });
  socket.write(requestHead);
  return {
    socket,
    bytes: () => received,
    until: (text) => new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no ${JSON.stringify(text)} within 5 s; got ${JSON.stringify(received)}`)), 5000);
      const check = () => {
        if (!received.includes(text)) return;
        clearTimeout(timer);
        waiters.delete(check);
        resolve();
      };
      waiters.add(check);
      check();
    }),
  };
}

/** The body's chunks, each checked against its size line; throws on any framing error. */
function dechunk(body: string): string[] {
  const chunks: string[] = [];
  let rest = body;
  while (rest.length > 0) {
    const line = rest.indexOf('\r\n');
    assert.ok(line > 0, `a chunk size line in ${JSON.stringify(rest.slice(0, 40))}`);
    const size = parseInt(rest.slice(0, line), 16);
    assert.ok(/^[0-9a-f]+$/.test(rest.slice(0, line)), `a hex chunk size: ${JSON.stringify(rest.slice(0, line))}`);
    const data = rest.slice(line + 2, line + 2 + size);
    assert.is(Buffer.byteLength(data, 'latin1'), size, 'the whole chunk is there');
    assert.is(rest.slice(line + 2 + size, line + 4 + size), '\r\n', 'each chunk ends with CRLF');
    chunks.push(data);
    rest = rest.slice(line + 4 + size);
  }
  return chunks;
}

test('HTTP/1.1: the ping and each event are one well-formed chunk each, and shutdown sends the last chunk', async () => {
  const tk = await kernel({ 'ping-interval': '1h' });
  const stream = rawStream(`${tk.url}/instances/events`, `GET /instances/events HTTP/1.1\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
  try {
    await stream.until(':ping');
    await register(tk, registration('shop', 1101));
    await register(tk, registration('shop', 1102));
    const [first, second] = tk.kernel.registry.events().map((event) => String(event.seq));
    await stream.until(`id: ${second}\n`);
    await tk.stop();
    await stream.until('\r\n0\r\n\r\n');
    const [head, body] = stream.bytes().split(/\r\n\r\n(.*)/s) as [string, string];
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.match(head, /\r\ntransfer-encoding: chunked/i);
    const chunks = dechunk(body);
    assert.is(chunks.at(-1), '', 'the terminating zero-size chunk');
    assert.is(chunks[0], ':ping\n\n');
    assert.equal(chunks.slice(1, 3).map((chunk) => /^id: (\d+)\ndata: \{.*\}\n\n$/.exec(chunk)?.[1]), [first, second]);
  } finally {
    stream.socket.destroy();
    await tk.stop();
  }
});

test('HTTP/1.0: the messages come as they are, without chunk framing', async () => {
  const tk = await kernel({ 'ping-interval': '1h' });
  const stream = rawStream(`${tk.url}/instances/events`, `GET /instances/events HTTP/1.0\r\nHost: localhost\r\nAccept: text/event-stream\r\n\r\n`);
  try {
    await stream.until(':ping');
    await register(tk, registration('shop', 1103));
    const seq = tk.kernel.registry.lastSeq;
    await stream.until(`id: ${seq}\n`);
    await stream.until('}\n\n');
    const [head, body] = stream.bytes().split(/\r\n\r\n(.*)/s) as [string, string];
    assert.match(head, /^HTTP\/1\.1 200 /);
    assert.not.match(head, /transfer-encoding/i);
    assert.match(body, new RegExp(`^:ping\\n\\nid: ${seq}\\ndata: \\{.*"type":"REGISTERED".*\\}\\n\\n$`, 's'));
  } finally {
    stream.socket.destroy();
    await tk.stop();
  }
});

test.run();
