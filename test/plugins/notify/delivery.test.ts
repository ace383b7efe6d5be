import { connect, createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

type Body = { from: string; to: string; instance: { name: string }; coalesced: number };
const change = (r: Received) => `${(r.json as Body).instance.name} ${(r.json as Body).from}→${(r.json as Body).to}`;
const FAST = { 'backoff-base': '20ms', 'backoff-cap': '100ms' };

let receiver: Receiver;
let tk: TestKernel | undefined;

test.before.each(async () => {
  receiver = await Receiver.start();
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await receiver.close();
});

async function channelStats(name = 'notify-webhook'): Promise<Record<string, unknown>> {
  return (await notificationsStatus(tk!)).channels.find((c) => c.name === name)!;
}

test('500, 500, 429 with Retry-After: 1, then 200: delivered once, the same request each time, and in order; the metrics count it', async () => {
  tk = await notifyKernel(['notify-webhook', 'metrics'], { notify: { delivery: FAST }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  receiver.answer({ status: 500 }, { status: 500 }, { status: 429, headers: { 'retry-after': '1' } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  await setStatus(tk, id, 'DOWN');
  const attempts = await receiver.received(4);
  assert.equal(attempts.map((r) => r.status), [500, 500, 429, 200]);
  assert.equal(new Set(attempts.map((r) => r.headers['webhook-id'])).size, 1);
  assert.equal(new Set(attempts.map((r) => r.body)).size, 1);
  await setStatus(tk, id, 'UP');
  await receiver.received(5);
  assert.equal(receiver.requests.filter((r) => r.status === 200).map(change), ['orders UP→DOWN', 'orders DOWN→UP']);
  const stats = await channelStats();
  assert.equal([stats.delivered, stats.retries, stats.failed], [2, 3, 0]);
  assert.ok(tk.logs().some((line) => /attempt 4 in 1000 ms, as the receiver asked/.test(line)), 'the wait honoured Retry-After');
  const metrics = await (await fetch(`${tk.url}/metrics`)).text();
  assert.match(metrics, /^vigil_notifications_total\{channel="notify-webhook",target="notify-webhook",outcome="delivered"\} 2$/m);
  assert.match(metrics, /^vigil_notifications_total\{channel="notify-webhook",target="notify-webhook",outcome="failed"\} 0$/m);
  assert.match(metrics, /^vigil_notification_retries_total\{channel="notify-webhook",target="notify-webhook"\} 3$/m);
  assert.match(metrics, /^vigil_notification_queue_length\{channel="notify-webhook",target="notify-webhook"\} 0$/m);
  assert.match(metrics, /^vigil_notification_changes_kept_back_total\{reason="held"\} 0$/m);
});

test('a receiver stopped for many backoff periods (default max-attempts and max-age): the DOWN arrives once it is back, before the UP, with its webhook-id', async () => {
  const port = receiver.port;
  tk = await notifyKernel(['notify-webhook'], { notify: { delivery: FAST }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  await receiver.close();
  await setStatus(tk, id, 'DOWN');
  const down = tk.kernel.registry.get(id)!.version;
  // Twelve failed attempts, each refused by the stopped receiver: more than twice the old limit of 5.
  await eventually(async () => {
    const stats = await channelStats();
    return stats.failed !== 0 || (stats.retries as number) >= 12;
  }, 'twelve retries (or giving up)', 15_000);
  assert.is((await channelStats()).failed, 0, 'the DOWN was given up while the receiver was away');
  assert.ok(tk.logs().some((line) => line.includes(`orders (${id}) UP → DOWN not delivered (ECONNREFUSED`)));
  await setStatus(tk, id, 'UP');
  const up = tk.kernel.registry.get(id)!.version;
  await eventually(async () => (await channelStats()).queued === 2, 'the UP queued behind the DOWN');
  receiver = await Receiver.start(port);
  // Back, but still starting: one more refusal, then it takes them.
  receiver.answer({ status: 503 });
  const got = await receiver.received(3);
  assert.equal(got.map((r) => `${r.status} ${change(r)}`), ['503 orders UP→DOWN', '200 orders UP→DOWN', '200 orders DOWN→UP']);
  assert.equal(got.map((r) => r.headers['webhook-id']), [`${id}-${down}`, `${id}-${down}`, `${id}-${up}`]);
  const stats = await channelStats();
  assert.equal([stats.delivered, stats.failed, stats.superseded, stats.queued], [2, 0, 0, 0]);
});

test('a receiver down for longer than max-age: given up with an error line; max-attempts ends it too; other 4xx at once', async () => {
  const closed = await freePort();
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], {
    notify: { delivery: { ...FAST, 'max-age': '300ms', 'max-attempts': 1000 } },
    'notify-webhook': { url: `http://127.0.0.1:${closed}/hook` },
    'notify-slack': { 'webhook-url': `${receiver.url}/slack`, 'rate-limit': 0 },
  });
  receiver.fallback = { status: 400, body: '{"error":"invalid_payload"}' };
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'DOWN');
  await eventually(async () => (await channelStats()).failed === 1, 'the webhook channel to give up', 5000);
  const line = tk.logs().find((l) => l.includes('gave up on') && l.includes('notify-webhook'))!;
  assert.match(line, /error/);
  assert.match(line, new RegExp(`gave up on ${id}-\\d+ \\(orders \\(${id}\\) UNKNOWN → DOWN\\): ECONNREFUSED.*the next would pass max-age`));
  await eventually(async () => (await channelStats('notify-slack')).failed === 1, 'slack to give up', 5000);
  assert.is(receiver.requests.length, 1, 'a 400 is not retried');
  assert.match(String((await channelStats('notify-slack')).lastFailure && ((await channelStats('notify-slack')).lastFailure as { reason: string }).reason), /^HTTP 400: \{"error":"invalid_payload"\}$/);
  await tk.stop();

  tk = await notifyKernel(['notify-webhook'], { notify: { delivery: { ...FAST, 'max-attempts': 3 } }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  receiver.fallback = { status: 503 };
  const other = await registerInstance(tk, 'billing');
  await setStatus(tk, other, 'DOWN');
  await eventually(async () => (await channelStats()).failed === 1, 'max-attempts', 5000);
  assert.is(receiver.requests.filter((r) => r.url === '/hook').length, 3);
  assert.ok(tk.logs().some((l) => /gave up on .*HTTP 503 \(after 3 attempts, max-attempts\)/.test(l)));
});

test('one lane per instance: a recovery waits for its alert in flight, never overtakes it', async () => {
  tk = await notifyKernel(['notify-webhook'], { notify: { delivery: FAST }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  let release!: () => void;
  receiver.answer({ status: 200, gate: new Promise<void>((resolve) => { release = resolve; }) });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'DOWN');
  await eventually(async () => (await channelStats()).inFlight === 1, 'the alert in flight');
  await setStatus(tk, id, 'UP');
  await eventually(async () => (await channelStats()).queued === 2, 'the recovery queued behind it');
  assert.is(receiver.requests.length, 0);
  release();
  const got = await receiver.received(2);
  assert.equal(got.map(change), ['orders UNKNOWN→DOWN', 'orders DOWN→UP']);
});

test('a newer state never replaces a notification being retried: it waits behind it, and later ones are coalesced into it', async () => {
  tk = await notifyKernel(['notify-webhook'], { notify: { delivery: FAST }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  let release!: () => void;
  receiver.answer({ status: 500 }, { status: 200, gate: new Promise<void>((resolve) => { release = resolve; }) });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'DOWN');
  // The retry is in flight (held by the receiver) when the instance changes three times.
  await receiver.arrived(2);
  await setStatus(tk, id, 'UP');
  await setStatus(tk, id, 'OUT_OF_SERVICE');
  await setStatus(tk, id, 'UP');
  await eventually(async () => (await channelStats()).coalesced === 2, 'the later states coalesced behind the retry');
  assert.is((await channelStats()).queued, 2, 'one notification behind the retry, not three');
  release();
  const got = await receiver.received(3);
  assert.equal(got.map((r) => `${r.status} ${change(r)}`), ['500 orders UNKNOWN→DOWN', '200 orders UNKNOWN→DOWN', '200 orders OUT_OF_SERVICE→UP']);
  assert.is((got[2]!.json as Body).coalesced, 2);
  assert.equal(new Set(got.slice(0, 2).map((r) => r.headers['webhook-id'])).size, 1);
  const stats = await channelStats();
  assert.equal([stats.delivered, stats.superseded, stats.coalesced, stats.queued], [2, 0, 2, 0]);
});

test('a full queue coalesces per instance (the newest state, counted) and refuses a new instance with an error line', async () => {
  tk = await notifyKernel(['notify-webhook'], {
    notify: { delivery: { ...FAST, concurrency: 1, 'queue-size': 2 } },
    'notify-webhook': { url: `${receiver.url}/hook` },
  });
  let release!: () => void;
  receiver.answer({ status: 200, gate: new Promise<void>((resolve) => { release = resolve; }) });
  const [a, b, c] = [await registerInstance(tk, 'a'), await registerInstance(tk, 'b'), await registerInstance(tk, 'c')];
  await setStatus(tk, a, 'DOWN');
  await eventually(async () => (await channelStats()).inFlight === 1, 'a in flight');
  await setStatus(tk, b, 'DOWN');
  await setStatus(tk, b, 'OUT_OF_SERVICE');
  await setStatus(tk, b, 'UP');
  await setStatus(tk, c, 'DOWN');
  await eventually(async () => (await channelStats()).dropped === 1, 'c refused');
  release();
  const got = await receiver.received(2);
  assert.equal(got.map(change), ['a UNKNOWN→DOWN', 'b OUT_OF_SERVICE→UP']);
  assert.is((got[1]!.json as Body).coalesced, 2);
  const stats = await channelStats();
  assert.equal([stats.coalesced, stats.dropped, stats.delivered], [2, 1, 2]);
  assert.ok(tk.logs().some((l) => /error.*dropped .*\(c \(.*UNKNOWN → DOWN\): the queue is full/.test(l)));
});

test('rate-limit: a token bucket per channel paces a burst', async () => {
  tk = await notifyKernel(['notify-slack'], { 'notify-slack': { 'webhook-url': `${receiver.url}/slack`, 'rate-limit': 0.5 } });
  const ids = [await registerInstance(tk, 'a'), await registerInstance(tk, 'b'), await registerInstance(tk, 'c')];
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'DOWN')));
  await receiver.received(1);
  const stats = await channelStats('notify-slack');
  assert.equal([stats.delivered, stats.inFlight, stats.queued], [1, 0, 2], 'the other two wait for tokens');
});

test('a receiver that does not answer within the timeout is retried', async () => {
  tk = await notifyKernel(['notify-webhook'], { notify: { delivery: { ...FAST, timeout: '200ms' } }, 'notify-webhook': { url: `${receiver.url}/hook` } });
  receiver.answer({ status: 200, gate: new Promise(() => undefined) });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'DOWN');
  await receiver.received(1);
  const stats = await channelStats();
  assert.equal([stats.delivered, stats.retries], [1, 1]);
  assert.ok(tk.logs().some((l) => l.includes('not delivered (no answer within 200 ms)')));
});

test('notify.proxy: every call goes through the HTTP proxy with its credentials, which are never shown', async () => {
  const proxy = await ConnectProxy.start();
  try {
    tk = await notifyKernel(['notify-webhook'], {
      notify: { proxy: `http://vigil:pr0xy-Pa55@127.0.0.1:${proxy.port}` },
      'notify-webhook': { url: `${receiver.url}/hook` },
    });
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    await receiver.received(1);
    assert.equal(proxy.connects, [{ target: `127.0.0.1:${receiver.port}`, auth: `Basic ${Buffer.from('vigil:pr0xy-Pa55').toString('base64')}` }]);
    const status = await (await fetch(`${tk.url}/notifications`)).text();
    assert.ok(!status.includes('pr0xy-Pa55') && !status.includes('vigil:'), status);
    assert.match(status, /"proxy":"http:\/\/127\.0\.0\.1:\d+\/\*\*\*\*\*\*"/);
    assert.ok(!tk.logs().join('\n').includes('pr0xy-Pa55'));
  } finally {
    await proxy.close();
  }
});

/** A CONNECT proxy on 127.0.0.1 that records each tunnel's target and Proxy-Authorization. */
class ConnectProxy {
  readonly connects: { target: string; auth: string | undefined }[] = [];
  readonly #sockets = new Set<Socket>();
  #server = createNetServer((socket) => this.#handle(socket));
  port = 0;

  static async start(): Promise<ConnectProxy> {
    const proxy = new ConnectProxy();
    await new Promise<void>((resolve) => proxy.#server.listen(0, '127.0.0.1', resolve));
    proxy.port = (proxy.#server.address() as AddressInfo).port;
    return proxy;
  }

  #handle(socket: Socket): void {
    this.#sockets.add(socket);
    socket.on('close', () => this.#sockets.delete(socket));
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onData);
      const [requestLine, ...lines] = head.slice(0, end).split('\r\n');
      const target = requestLine!.split(' ')[1]!;
      const auth = lines.find((line) => /^proxy-authorization:/i.test(line))?.replace(/^[^:]+:\s*/, '');
      this.connects.push({ target, auth });
      const [host, port] = target.split(':');
      const upstream = connect(Number(port), host!, () => {
        socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        const rest = head.slice(end + 4);
        if (rest) upstream.write(Buffer.from(rest, 'latin1'));
        socket.pipe(upstream).pipe(socket);
      });
      this.#sockets.add(upstream);
      upstream.on('close', () => this.#sockets.delete(upstream));
      upstream.on('error', () => socket.destroy());
      socket.on('error', () => upstream.destroy());
    };
    socket.on('data', onData);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

test.run();
