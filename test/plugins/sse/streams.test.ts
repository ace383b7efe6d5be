import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../../support/http.js';
import { deregister, kernel, openSse, register, registration } from './client.js';

test('all-events stream: headers, a ping on connect, then each event with its seq as id', async () => {
  const tk = await kernel();
  const stream = await openSse(`${tk.url}/instances/events`);
  try {
    assert.is(stream.status, 200);
    assert.is(stream.headers['content-type'], 'text/event-stream;charset=UTF-8');
    assert.is(stream.headers['cache-control'], 'no-cache');
    assert.is(stream.headers['x-accel-buffering'], 'no');
    assert.is(stream.headers.connection, 'keep-alive');
    await stream.until(() => stream.comments.length > 0, 'the ping sent on connect');
    assert.is(stream.comments[0], 'ping');

    const id = await register(tk, registration('shop', 1001));
    await register(tk, registration('shop', 1001, { zone: 'b' }));
    await deregister(tk, id);
    await stream.until(() => stream.messages.length >= 3, 'three events');
    assert.equal(stream.messages.map((m) => `${m.json.type}@${m.json.version}`), ['REGISTERED@0', 'REGISTRATION_UPDATED@1', 'DEREGISTERED@2']);
    const held = tk.kernel.registry.eventsOf(id);
    assert.equal(stream.messages.map((m) => m.id), held.map((e) => String(e.seq)));
    const first = stream.messages[0]!.json;
    assert.is(first.instance, id);
    assert.is(first.registration.name, 'shop');
    assert.type(first.timestamp, 'string');
    assert.not.ok('seq' in first, 'seq is the SSE id, not part of the payload');
  } finally {
    stream.close();
    await tk.stop();
  }
});

test('a ping goes out every ping-interval', async () => {
  const tk = await kernel();
  const stream = await openSse(`${tk.url}/instances/events`);
  try {
    await stream.until(() => stream.comments.length >= 3, 'two pings after the first');
    assert.ok(stream.comments.every((c) => c === 'ping'));
    assert.is(stream.messages.length, 0);
  } finally {
    stream.close();
    await tk.stop();
  }
});

test('without Accept: text/event-stream the JSON routes answer', async () => {
  const tk = await kernel();
  try {
    const id = await register(tk, registration('shop', 1002));
    const events = await call('GET', `${tk.url}/instances/events`, { headers: { accept: 'application/json' } });
    assert.is(events.status, 200);
    assert.ok(Array.isArray(events.json));
    const instance = await call('GET', `${tk.url}/instances/${id}`);
    assert.is((instance.json as { id: string }).id, id);
    const apps = await call('GET', `${tk.url}/applications`, { headers: { accept: '*/*' } });
    assert.ok(Array.isArray(apps.json));
  } finally {
    await tk.stop();
  }
});

test('per-instance stream /instances/{id}/events: only that instance\'s events', async () => {
  const tk = await kernel();
  const a = await register(tk, registration('alpha', 1003));
  const b = await register(tk, registration('beta', 1004));
  const stream = await openSse(`${tk.url}/instances/${a}/events`, { accept: '*/*' });
  try {
    assert.is(stream.status, 200);
    assert.is(stream.headers['content-type'], 'text/event-stream;charset=UTF-8');
    // B changes first: had it leaked into A's stream it would arrive before A's update.
    await register(tk, registration('beta', 1004, { marker: 'b2' }));
    await register(tk, registration('alpha', 1003, { marker: 'a2' }));
    await deregister(tk, b);
    await deregister(tk, a);
    await stream.waitFor((m) => m.json.type === 'DEREGISTERED', 'the DEREGISTERED of A');
    assert.equal(stream.messages.map((m) => m.json.type), ['REGISTRATION_UPDATED', 'DEREGISTERED']);
    assert.ok(stream.messages.every((m) => m.json.instance === a), 'foreign data in the stream');
    assert.is(stream.messages[0]!.json.registration.metadata.marker, 'a2');
  } finally {
    stream.close();
    await tk.stop();
  }
});

test('GET /instances/{id} with Accept text/event-stream: the instance JSON after each of its events, as SBA sends it', async () => {
  const tk = await kernel();
  const a = await register(tk, registration('alpha', 1013));
  const b = await register(tk, registration('beta', 1014));
  const stream = await openSse(`${tk.url}/instances/${a}`, { accept: 'application/json;q=0.5, text/event-stream' });
  try {
    assert.is(stream.status, 200);
    assert.is(stream.headers['content-type'], 'text/event-stream;charset=UTF-8');
    await register(tk, registration('beta', 1014, { marker: 'b2' }));
    await register(tk, registration('alpha', 1013, { marker: 'a2', password: 'hidden' }));
    const updated = (await call('GET', `${tk.url}/instances/${a}`)).json;
    await deregister(tk, b);
    await deregister(tk, a);
    await stream.waitFor((m) => m.json.registered === false, 'the deregistered snapshot of A');
    assert.is(stream.messages.length, 2, 'one message per event of A, none for B');
    const [first, last] = stream.messages.map((m) => m.json);
    assert.equal(first, updated, 'the same JSON as GET /instances/{id}');
    assert.is(first!.registration.metadata.password, '******');
    assert.is(last!.id, a);
    assert.is(last!.version, 2);
    assert.equal(stream.messages.map((m) => m.id), tk.kernel.registry.eventsOf(a).slice(1).map((e) => String(e.seq)));
  } finally {
    stream.close();
    await tk.stop();
  }
});

test('per-instance stream of an unknown id: 404 JSON error on both forms, before any stream header', async () => {
  const tk = await kernel();
  try {
    for (const path of ['/instances/nope/events', '/instances/nope']) {
      const reply = await openSse(`${tk.url}${path}`);
      assert.is(reply.status, 404, path);
      assert.match(String(reply.headers['content-type']), /application\/json/);
      const body = JSON.parse(reply.body) as { status: number; path: string; message: string };
      assert.is(body.status, 404);
      assert.is(body.path, path);
      assert.match(body.message, /nope/);
    }
  } finally {
    await tk.stop();
  }
});

test('a deregistered instance still held can be streamed', async () => {
  const tk = await kernel();
  const id = await register(tk, registration('gone', 1005));
  await deregister(tk, id);
  const stream = await openSse(`${tk.url}/instances/${id}/events`);
  try {
    assert.is(stream.status, 200);
    await register(tk, registration('gone', 1005));
    const back = await stream.waitFor((m) => m.json.type === 'REGISTERED', 'the re-registration');
    assert.is(back.json.instance, id);
  } finally {
    stream.close();
    await tk.stop();
  }
});

test('metadata is sanitised in stream payloads', async () => {
  const tk = await kernel();
  const all = await openSse(`${tk.url}/instances/events`);
  const apps = await openSse(`${tk.url}/applications/events`);
  try {
    const id = await register(tk, registration('secret', 1006, { password: 's3cr3t', zone: 'eu' }));
    const event = await all.waitFor((m) => m.json.instance === id, 'the REGISTERED event');
    assert.equal(event.json.registration.metadata, { password: '******', zone: 'eu' });
    const app = await apps.waitFor((m) => m.json.name === 'secret', 'the application snapshot');
    assert.equal(app.json.instances[0].registration.metadata, { password: '******', zone: 'eu' });
    assert.not.match(all.messages.map((m) => m.data).join('') + apps.messages.map((m) => m.data).join(''), 's3cr3t');
  } finally {
    all.close();
    apps.close();
    await tk.stop();
  }
});

test('streams live under the context path', async () => {
  const tk = await kernel({}, { 'context-path': '/admin' });
  const stream = await openSse(`${tk.url}/instances/events`);
  try {
    assert.ok(tk.url.endsWith('/admin'));
    assert.is(stream.status, 200);
    const id = await register(tk, registration('ctx', 1007));
    await stream.waitFor((m) => m.json.instance === id, 'the REGISTERED event');
    const outside = await openSse(`${tk.url.replace(/\/admin$/, '')}/instances/events`);
    assert.is(outside.status, 404);
  } finally {
    stream.close();
    await tk.stop();
  }
});

test.run();
