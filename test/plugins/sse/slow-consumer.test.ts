import { connect, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../../support/http.js';
import { kernel, openSse, register, registration } from './client.js';

/** A raw connection that reads until the first ping, then stops reading (paused socket). */
async function stalledSubscriber(url: string): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port, pathname } = new URL(url);
  const base = pathname.replace(/\/$/, '');
  const socket = connect(Number(port), hostname);
  let received = '';
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  socket.setEncoding('utf8');
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.once('close', () => reject(new Error(`the connection closed before the first ping: ${received}`)));
    socket.on('data', (text: string) => {
      received += text;
      if (received.includes(':ping')) resolve();
    });
    socket.write(`GET ${base}/instances/events HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`);
  });
  socket.pause();
  return { socket, received: () => received, closed };
}

test('a subscriber that stops reading is disconnected past max-buffered-bytes; the others get everything', async () => {
  const tk = await kernel({ 'max-buffered-bytes': 64 * 1024 });
  const stalled = await stalledSubscriber(tk.url);
  const healthy = await openSse(`${tk.url}/instances/events`);
  stalled.socket.on('error', () => undefined); // the server may reset it
  const big = 'x'.repeat(400_000);
  const dropped = () => tk.logs().some((line) => line.includes('stopped reading'));
  let last = 0;
  try {
    // Kernel socket buffers absorb a few MB first, so changes go on until the server gives up;
    // the bound only keeps a broken server from looping forever.
    for (let n = 1; n <= 200 && !dropped(); n += 1) {
      await register(tk, registration('bulky', 5001, { big, n: String(n) }));
      last = n;
    }
    assert.ok(dropped(), 'the stalled subscriber was never disconnected');
    assert.ok(last > 1);

    // The healthy reader gets every event, in order, including the one that overflowed the other.
    await healthy.until(() => healthy.messages.length >= last, `all ${last} events`, 20_000);
    assert.equal(healthy.messages.map((m) => m.json.registration.metadata.n), Array.from({ length: last }, (_, i) => String(i + 1)));

    // Once it reads again the stalled one finds its stream cut short: the last event never reached it.
    stalled.socket.resume();
    await stalled.closed;
    assert.not.ok(stalled.received().includes(`"n":"${last}"`), 'the overflowing frame was still written');
    await eventually(() => tk.logs().some((line) => /warn/i.test(line) && line.includes('stopped reading')), 'a warning');

    // The fan-out goes on for the remaining subscriber.
    const id = await register(tk, registration('after', 5002));
    await healthy.waitFor((m) => m.json.instance === id, 'an event after the disconnect');
  } finally {
    stalled.socket.destroy();
    healthy.close();
    await tk.stop();
  }
});

test.run();
