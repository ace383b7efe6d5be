import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { kernel, openSse, register, registration } from './client.js';

test('kernel.stop() ends every open stream', async () => {
  const tk = await kernel();
  const id = await register(tk, registration('shop', 4001));
  const streams = await Promise.all([
    openSse(`${tk.url}/instances/events`),
    openSse(`${tk.url}/instances/${id}/events`),
    openSse(`${tk.url}/applications/events`),
  ]);
  try {
    assert.ok(streams.every((s) => s.status === 200));
    await Promise.all(streams.map((s) => s.until(() => s.comments.length > 0, 'the first ping')));
    await tk.stop();
    await Promise.all(streams.map((s) => s.ended));
    assert.ok(streams.every((s) => s.isEnded()));
    assert.ok(tk.logs().some((line) => line.includes('ended 3 open stream(s)')));
  } finally {
    for (const s of streams) s.close();
    await tk.stop();
  }
});

test('a client that leaves is removed from the fan-out', async () => {
  const tk = await kernel();
  try {
    const stream = await openSse(`${tk.url}/instances/events`);
    stream.close();
    await stream.ended;
    await eventually(() => tk.logs().some((line) => line.includes('stream closed by the client: events')), 'the close to be noticed');
    // Publishing with nobody listening is a no-op, not an error.
    await register(tk, registration('shop', 4002));
  } finally {
    await tk.stop();
  }
});

test('config: defaults apply, unknown keys and bad values are refused', async () => {
  assert.equal(await checkPlugin('sse'), []);
  assert.equal(await checkPlugin('sse', { sse: { 'ping-interval': '5s', 'max-buffered-bytes': 65536 } }), []);
  const unknown = await checkPlugin('sse', { sse: { 'ping-intervall': '5s' } });
  assert.ok(unknown.some((p) => p.includes('sse') && p.includes('ping-intervall')), unknown.join('\n'));
  const bad = await checkPlugin('sse', { sse: { 'ping-interval': 'soon', 'max-buffered-bytes': 10 } });
  assert.ok(bad.some((p) => p.includes('sse.ping-interval')), bad.join('\n'));
  assert.ok(bad.some((p) => p.includes('sse.max-buffered-bytes')), bad.join('\n'));
});

test.run();
