import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { deregister, kernel, openSse, register, registration } from './client.js';

const summary = (m: { id: string | undefined; json: Record<string, unknown> }) => `${m.id}:${String(m.json.instance)}:${String(m.json.type)}`;

test('Last-Event-ID: the missed events, then live ones, with no gap and no duplicate', async () => {
  const tk = await kernel();
  const first = await openSse(`${tk.url}/instances/events`);
  let second: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    const a = await register(tk, registration('shop', 3001));
    await register(tk, registration('shop', 3001, { v: '2' }));
    await first.until(() => first.messages.length >= 2, 'two events');
    const lastId = first.messages[1]!.id!;
    first.close();
    await first.ended;

    const b = await register(tk, registration('cart', 3002));
    await register(tk, registration('shop', 3001, { v: '3' }));
    await deregister(tk, b);
    const missed = tk.kernel.registry.eventsSince(Number(lastId));
    assert.is(missed.length, 3);

    second = await openSse(`${tk.url}/instances/events`, { 'last-event-id': lastId });
    await deregister(tk, a);
    const stream = second;
    await stream.until(() => stream.messages.length >= 4, 'three replayed and one live event');
    const expected = tk.kernel.registry.eventsSince(Number(lastId)).map((e) => `${e.seq}:${e.instance}:${e.type}`);
    assert.equal(stream.messages.map(summary), expected);
    assert.equal(expected.map((line) => line.split(':')[2]), ['REGISTERED', 'REGISTRATION_UPDATED', 'DEREGISTERED', 'DEREGISTERED']);
    assert.is(stream.comments[0], 'ping');
  } finally {
    first.close();
    second?.close();
    await tk.stop();
  }
});

test('Last-Event-ID on a per-instance stream replays only that instance', async () => {
  const tk = await kernel();
  let stream: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    const a = await register(tk, registration('shop', 3003));
    const since = tk.kernel.registry.lastSeq;
    const b = await register(tk, registration('cart', 3004));
    await register(tk, registration('shop', 3003, { v: '2' }));
    await deregister(tk, b);
    stream = await openSse(`${tk.url}/instances/${a}/events`, { 'last-event-id': String(since) });
    await deregister(tk, a);
    const s = stream;
    await s.until(() => s.messages.length >= 2, 'one replayed and one live event');
    assert.equal(s.messages.map((m) => `${m.json.instance}:${m.json.type}`), [`${a}:REGISTRATION_UPDATED`, `${a}:DEREGISTERED`]);
    assert.ok(Number(s.messages[0]!.id) < Number(s.messages[1]!.id));
  } finally {
    stream?.close();
    await tk.stop();
  }
});

test('Last-Event-ID on an instance snapshot stream: one current snapshot when anything was missed, none otherwise', async () => {
  const tk = await kernel();
  const streams: Awaited<ReturnType<typeof openSse>>[] = [];
  try {
    const a = await register(tk, registration('shop', 3013));
    const since = tk.kernel.registry.lastSeq;
    await register(tk, registration('shop', 3013, { v: '2' }));
    await register(tk, registration('shop', 3013, { v: '3' }));
    const newest = tk.kernel.registry.lastSeq;
    const missed = await openSse(`${tk.url}/instances/${a}`, { 'last-event-id': String(since) });
    streams.push(missed);
    const current = await openSse(`${tk.url}/instances/${a}`, { 'last-event-id': String(newest) });
    streams.push(current);
    await deregister(tk, a);
    await missed.until(() => missed.messages.length >= 2, 'the replayed snapshot and a live one');
    await current.until(() => current.messages.length >= 1, 'the live snapshot');
    const [replayed, live] = missed.messages;
    assert.is(Number(replayed!.id), newest);
    assert.is(replayed!.json.id, a);
    assert.is(replayed!.json.registration.metadata.v, '3', 'the instance as it is now, not one per missed event');
    assert.is(live!.json.registered, false);
    assert.equal(current.messages.map((m) => m.json.registered), [false], 'nothing missed, nothing replayed');
  } finally {
    for (const stream of streams) stream.close();
    await tk.stop();
  }
});

test('Last-Event-ID on an application stream: one current snapshot per touched application, in order of last touch', async () => {
  const tk = await kernel();
  let stream: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    const one = await register(tk, registration('shop', 3005));
    const since = tk.kernel.registry.lastSeq;
    const two = await register(tk, registration('shop', 3006));
    const other = await register(tk, registration('cart', 3007));
    await register(tk, registration('shop', 3005, { v: '2' }));
    const lastShop = tk.kernel.registry.lastSeq;
    stream = await openSse(`${tk.url}/applications/events`, { 'last-event-id': String(since) });
    await deregister(tk, other);
    const s = stream;
    await s.until(() => s.messages.length >= 3, 'two replayed snapshots and one live one');
    const [cart, shop, live] = s.messages;
    assert.is(cart!.json.name, 'cart');
    assert.is(Number(cart!.id), lastShop - 1);
    assert.is(shop!.json.name, 'shop');
    assert.is(Number(shop!.id), lastShop);
    assert.equal(shop!.json.instances.map((i: { id: string }) => i.id).sort(), [one, two].sort());
    assert.is(live!.json.name, 'cart');
    assert.equal(live!.json.instances, []);
    assert.ok(Number(live!.id) > lastShop);
  } finally {
    stream?.close();
    await tk.stop();
  }
});

test('an invalid Last-Event-ID is ignored: live events only', async () => {
  const tk = await kernel();
  let stream: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    await register(tk, registration('shop', 3008));
    stream = await openSse(`${tk.url}/instances/events`, { 'last-event-id': 'not-a-number' });
    const id = await register(tk, registration('cart', 3009));
    const s = stream;
    await s.waitFor((m) => m.json.instance === id, 'the live event');
    assert.equal(s.messages.map((m) => m.json.instance), [id]);
  } finally {
    stream?.close();
    await tk.stop();
  }
});

test('a Last-Event-ID beyond the newest seq (an earlier server run) replays everything held', async () => {
  const tk = await kernel();
  let stream: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    const a = await register(tk, registration('shop', 3010));
    const b = await register(tk, registration('cart', 3011));
    stream = await openSse(`${tk.url}/instances/events`, { 'last-event-id': '987654' });
    const s = stream;
    await s.until(() => s.messages.length >= 2, 'the held events');
    assert.equal(s.messages.map((m) => m.json.instance), [a, b]);
  } finally {
    stream?.close();
    await tk.stop();
  }
});

test('a Last-Event-ID this node has not reached yet (a node behind another in a cluster) is waited for, not replayed over', async () => {
  const tk = await kernel();
  let stream: Awaited<ReturnType<typeof openSse>> | undefined;
  try {
    await register(tk, registration('shop', 3020));
    const ahead = tk.kernel.registry.lastSeq + 1;
    const opening = openSse(`${tk.url}/instances/events`, { 'last-event-id': String(ahead) });
    // The event the client saw elsewhere reaches this node a moment later.
    await register(tk, registration('cart', 3021));
    stream = await opening;
    const s = stream;
    const third = await register(tk, registration('cart', 3022));
    await s.until(() => s.messages.some((m) => m.json.instance === third), 'the event after it');
    assert.equal(s.messages.map((m) => Number(m.id)), [ahead + 1], 'nothing replayed: the client had everything up to its id');
  } finally {
    stream?.close();
    await tk.stop();
  }
});

test.run();
