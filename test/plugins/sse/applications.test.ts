import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deregister, kernel, openSse, register, registration } from './client.js';

for (const [form, path, headers] of [
  ['/applications/events', '/applications/events', { accept: '*/*' }],
  ['/applications with Accept', '/applications', { accept: 'text/event-stream' }],
] as const) {
  test(`application stream ${form}: a whole snapshot per event, instances: [] once the last is gone`, async () => {
    const tk = await kernel();
    const stream = await openSse(`${tk.url}${path}`, headers);
    try {
      assert.is(stream.status, 200);
      assert.is(stream.headers['content-type'], 'text/event-stream;charset=UTF-8');
      const one = await register(tk, registration('shop', 2001));
      const two = await register(tk, registration('shop', 2002));
      await deregister(tk, one);
      await deregister(tk, two);
      await stream.until(() => stream.messages.length >= 4, 'four snapshots');
      assert.equal(stream.messages.map((m) => m.json.instances.map((i: { id: string }) => i.id)), [[one], [one, two], [two], []]);
      assert.ok(stream.messages.every((m) => m.json.name === 'shop'));
      const last = stream.messages[3]!.json;
      assert.is(last.status, 'UNKNOWN');
      assert.is(last.statusTimestamp, new Date(0).toISOString());
      // Each snapshot carries the id of the event that caused it.
      const seqs = [...tk.kernel.registry.eventsOf(one), ...tk.kernel.registry.eventsOf(two)].map((e) => e.seq).sort((x, y) => x - y);
      assert.equal(stream.messages.map((m) => Number(m.id)), seqs);
    } finally {
      stream.close();
      await tk.stop();
    }
  });
}

test('a rename sends the application left (now empty) and the one joined, under one id', async () => {
  const tk = await kernel();
  const stream = await openSse(`${tk.url}/applications/events`);
  try {
    const id = await register(tk, registration('old-name', 2003));
    await register(tk, registration('new-name', 2003));
    await stream.until(() => stream.messages.length >= 3, 'three snapshots');
    const [, left, joined] = stream.messages;
    assert.is(left!.json.name, 'old-name');
    assert.equal(left!.json.instances, []);
    assert.is(joined!.json.name, 'new-name');
    assert.is(joined!.json.instances[0].id, id);
    assert.is(left!.id, joined!.id);
  } finally {
    stream.close();
    await tk.stop();
  }
});

test.run();
