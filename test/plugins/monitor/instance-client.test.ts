import { getEventListeners } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Instance } from '../../../core/domain/index.js';
import { emptyInstance } from '../../../core/store/instance.js';
import { InstanceCallError } from '../../../plugins/monitor/call-error.js';
import { Cancellation } from '../../../plugins/monitor/cancellation.js';
import { InstanceClient, type InstanceClientOptions } from '../../../plugins/monitor/instance-client.js';
import { ACTUATOR_ACCEPT as DEFAULT_ACCEPT } from '../../../core/kits/runtime/index.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { TEST_USER_AGENT, testOutbound } from '../../support/outbound.js';
import { closedPort } from './support.js';

const instance: Instance = emptyInstance('abc');

function client(options: Partial<InstanceClientOptions> = {}): InstanceClient {
  return new InstanceClient({
    defaultTimeout: 1000, defaultRetries: 0, timeouts: {}, retries: {}, connectionsPerOrigin: 4,
    outbound: testOutbound(), ...options,
  });
}

async function failure(promise: Promise<unknown>): Promise<InstanceCallError> {
  try {
    await promise;
  } catch (error) {
    assert.instance(error, InstanceCallError);
    return error as InstanceCallError;
  }
  throw new Error('the call did not fail');
}

/** An instance registered on the fake's origin, with metadata credentials u:p. */
function ownedBy(fake: FakeActuator): Instance {
  const registration = { name: 'a', healthUrl: fake.endpointUrl('health'), managementUrl: fake.managementUrl, serviceUrl: null, source: 'test', metadata: { 'user.name': 'u', 'user.password': 'p' } };
  return { ...emptyInstance('abc'), registration, registered: true };
}

test('GET: status, lower-case headers, body; default Accept, User-Agent and the instance credentials', async () => {
  const fake = await FakeActuator.start();
  const http = client();
  const instance = ownedBy(fake);
  try {
    fake.on('GET', '/custom', { status: 202, body: 'hello', contentType: 'text/plain', headers: { 'X-Thing': 'yes' } });
    const response = await http.request(instance, fake.endpointUrl('custom'), { headers: { Authorization: 'Bearer caller', 'X-Mine': '1' } });
    assert.is(response.status, 202);
    assert.is(response.contentType, 'text/plain');
    assert.is(response.headers['x-thing'], 'yes');
    assert.is(response.body.toString(), 'hello');
    const seen = fake.requestsTo('/custom')[0]!;
    assert.is(seen.headers.accept, DEFAULT_ACCEPT);
    assert.is(seen.headers.authorization, 'Basic dTpw');
    assert.is(seen.headers['x-mine'], '1');
    assert.is(seen.headers['user-agent'], TEST_USER_AGENT);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('credentials never go to another origin than the instance\'s own: neither its own nor a caller\'s', async () => {
  const own = await FakeActuator.start();
  const other = await FakeActuator.start();
  const http = client({ outbound: testOutbound({ instanceAuth: { defaultUserName: 'ops', defaultPassword: 'secret' } }) });
  try {
    other.on('GET', '/elsewhere', { body: '{}', contentType: 'application/json' });
    await http.request(ownedBy(own), other.endpointUrl('elsewhere'), { headers: { Authorization: 'Bearer caller' } });
    const seen = other.requestsTo('/elsewhere')[0]!;
    assert.is(seen.headers.authorization, undefined);
    assert.is(seen.headers['user-agent'], TEST_USER_AGENT);
  } finally {
    await http.close();
    await own.close();
    await other.close();
  }
});

test('a given Accept is kept; no credentials means no Authorization; a missing Content-Type is ""', async () => {
  const fake = await FakeActuator.start();
  const http = client();
  try {
    fake.on('GET', '/plain', { body: '' });
    const response = await http.request(instance, fake.endpointUrl('plain'), { headers: { accept: 'text/plain' } });
    assert.is(response.contentType, '');
    assert.is(fake.requestsTo('/plain')[0]!.headers.accept, 'text/plain');
    assert.is(fake.requestsTo('/plain')[0]!.headers.authorization, undefined);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('connection refused: ECONNREFUSED', async () => {
  const http = client();
  try {
    const error = await failure(http.request(instance, `http://127.0.0.1:${await closedPort()}/health`));
    assert.is(error.code, 'ECONNREFUSED');
    assert.ok(error.message.length > 0);
  } finally {
    await http.close();
  }
});

test('no headers within the time-out: ETIMEDOUT', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 5000, timeouts: { health: 100 } });
  try {
    fake.on('GET', '/health', { handler: () => undefined });
    const error = await failure(http.request(instance, fake.healthUrl, { endpointId: 'health' }));
    assert.is(error.code, 'ETIMEDOUT');
  } finally {
    await http.close();
    await fake.close();
  }
});

test('a body dripped a byte at a time still times out (the deadline covers the body)', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 200 });
  const timers = new Set<NodeJS.Timeout>();
  try {
    fake.on('GET', '/health', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{');
        const timer = setInterval(() => res.write(' '), 20);
        timers.add(timer);
        res.on('close', () => clearInterval(timer));
      },
    });
    const error = await failure(http.request(instance, fake.healthUrl));
    assert.is(error.code, 'ETIMEDOUT');
  } finally {
    for (const timer of timers) clearInterval(timer);
    await http.close();
    await fake.close();
  }
});

test('bodies over the cap fail: declared length and streamed (chunked) bodies', async () => {
  const fake = await FakeActuator.start();
  const http = client();
  try {
    fake.on('GET', '/declared', { body: 'x'.repeat(2000), contentType: 'application/json', headers: { 'content-length': '2000' } });
    assert.is((await failure(http.request(instance, fake.endpointUrl('declared'), { maxBodyBytes: 1000 }))).code, 'EBODYTOOLARGE');
    fake.on('GET', '/streamed', {
      handler: (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        // Would be 100 MB; the client must give up after the cap and never buffer it.
        let sent = 0;
        const pump = () => {
          while (sent < 1600 && res.write(chunk)) sent += 1;
          if (sent < 1600 && !res.destroyed) res.once('drain', pump);
          else res.end();
        };
        pump();
      },
    });
    assert.is((await failure(http.request(instance, fake.endpointUrl('streamed')))).code, 'EBODYTOOLARGE');
    // Under the cap is fine.
    fake.on('GET', '/small', { body: 'ok' });
    assert.is((await http.request(instance, fake.endpointUrl('small'), { maxBodyBytes: 2 })).body.toString(), 'ok');
  } finally {
    await http.close();
    await fake.close();
  }
});

test('reads retry immediately: first attempt times out, second answers', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 150, retries: { health: 1 } });
  try {
    let calls = 0;
    fake.on('GET', '/health', {
      handler: (_req, res) => {
        calls += 1;
        if (calls === 1) return; // hangs
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
      },
    });
    const response = await http.request(instance, fake.healthUrl, { endpointId: 'health' });
    assert.is(response.status, 200);
    assert.is(calls, 2);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('writes never retry; default-retries applies to reads without their own key', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 100, defaultRetries: 2 });
  try {
    fake.on('POST', '/refresh', { handler: () => undefined });
    fake.on('GET', '/env', { handler: () => undefined });
    assert.is((await failure(http.request(instance, fake.endpointUrl('refresh'), { method: 'POST', endpointId: 'refresh' }))).code, 'ETIMEDOUT');
    assert.is(fake.requestsTo('/refresh', 'POST').length, 1);
    await failure(http.request(instance, fake.endpointUrl('env'), { endpointId: 'env' }));
    assert.is(fake.requestsTo('/env', 'GET').length, 3);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('an aborted caller signal, or shutdown, ends the call with EABORTED and no retry', async () => {
  const fake = await FakeActuator.start();
  const shutdown = new Cancellation();
  const http = client({ defaultRetries: 3, shutdown, defaultTimeout: 5000 });
  try {
    fake.on('GET', '/health', { handler: () => undefined });
    const caller = new AbortController();
    const pending = failure(http.request(instance, fake.healthUrl, { signal: caller.signal }));
    setTimeout(() => caller.abort(), 30);
    assert.is((await pending).code, 'EABORTED');
    const early = new AbortController();
    early.abort();
    assert.is((await failure(http.request(instance, fake.healthUrl, { signal: early.signal }))).code, 'EABORTED');
    shutdown.cancel();
    assert.is((await failure(http.request(instance, fake.healthUrl))).code, 'EABORTED');
    assert.is(fake.requestsTo('/health').length, 1);
  } finally {
    await http.close();
    await fake.close();
  }
});

/** A health route whose first request hangs (until its caller gives up) and whose later ones answer UP at once. */
function firstHangs(fake: FakeActuator): void {
  let calls = 0;
  fake.on('GET', '/health', {
    handler: (_req, res) => {
      calls += 1;
      if (calls > 1) res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
    },
  });
}

test('the time-out counts from when a call is sent: waiting for a connection to a busy origin does not count', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 300, connectionsPerOrigin: 1 });
  try {
    firstHangs(fake);
    const first = failure(http.request(instance, fake.healthUrl));
    // Asked for at the same instant, sent only when the first gave up: its own 300 ms start then.
    const second = http.request(instance, fake.healthUrl);
    assert.is((await first).code, 'ETIMEDOUT');
    assert.is((await second).status, 200);
    assert.is(fake.requestsTo('/health').length, 2);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('cut-off: over all attempts, counted from the first sent; past it ECUTOFF and no retry', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 5000, defaultRetries: 3, connectionsPerOrigin: 1 });
  try {
    fake.on('GET', '/hang', { handler: () => undefined });
    const cut = await failure(http.request(instance, fake.endpointUrl('hang'), { cutOff: 200 }));
    assert.is(cut.code, 'ECUTOFF');
    assert.match(cut.message, /no complete answer within 200 ms of the first attempt/);
    assert.is(fake.requestsTo('/hang').length, 1);

    firstHangs(fake);
    const blocking = failure(http.request(instance, fake.healthUrl, { cutOff: 300 }));
    const waiting = http.request(instance, fake.healthUrl, { cutOff: 200 });
    assert.is((await blocking).code, 'ECUTOFF');
    assert.is((await waiting).status, 200, 'its 200 ms began when it was sent, after 300 ms in line');
  } finally {
    await http.close();
    await fake.close();
  }
});

test('a call aborted while it waits for its origin leaves the line and is never sent; shutdown ends waiting calls', async () => {
  const fake = await FakeActuator.start();
  const shutdown = new Cancellation();
  const http = client({ defaultTimeout: 5000, connectionsPerOrigin: 1, shutdown });
  try {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => { arrived = resolve; });
    fake.on('GET', '/health', { handler: () => arrived() });
    const blocking = failure(http.request(instance, fake.healthUrl));
    await firstArrived;
    const caller = new AbortController();
    const abandoned = failure(http.request(instance, fake.healthUrl, { signal: caller.signal }));
    const queued = failure(http.request(instance, fake.healthUrl));
    caller.abort();
    assert.is((await abandoned).code, 'EABORTED');
    shutdown.cancel();
    assert.equal([(await blocking).code, (await queued).code], ['EABORTED', 'EABORTED']);
    assert.is(fake.requestsTo('/health').length, 1, 'only the first was ever sent');
  } finally {
    await http.close();
    await fake.close();
  }
});

test('call() with the monitor\'s own token: cancelled in flight, before it starts, or while it waits for its origin; nothing stays subscribed', async () => {
  const fake = await FakeActuator.start();
  const shutdown = new Cancellation();
  const http = client({ defaultRetries: 3, defaultTimeout: 5000, connectionsPerOrigin: 1, shutdown });
  try {
    let arrived!: () => void;
    const firstArrived = new Promise<void>((resolve) => { arrived = resolve; });
    fake.on('GET', '/health', { handler: () => arrived() });
    const inFlight = new Cancellation();
    const pending = failure(http.call(instance, fake.healthUrl, {}, inFlight));
    await firstArrived;
    assert.is(shutdown.listenerCount, 1, 'the shutdown token holds one listener for the client, none per call');
    const waiting = new Cancellation();
    const queued = failure(http.call(instance, fake.healthUrl, {}, waiting));
    waiting.cancel();
    assert.is((await queued).code, 'EABORTED');
    inFlight.cancel();
    assert.is((await pending).code, 'EABORTED');
    assert.is(fake.requestsTo('/health').length, 1, 'no retry after a cancel, and the waiting call was never sent');

    const early = new Cancellation();
    early.cancel();
    assert.is((await failure(http.call(instance, fake.healthUrl, {}, early))).code, 'EABORTED');
    assert.is(fake.requestsTo('/health').length, 1);

    fake.on('GET', '/health', { json: { status: 'UP' } });
    const answered = new Cancellation();
    assert.is((await http.call(instance, fake.healthUrl, {}, answered)).status, 200);
    assert.is(answered.listenerCount, 0, 'a finished call leaves nothing on its caller\'s token');
    assert.is(shutdown.listenerCount, 1);
  } finally {
    await http.close();
    await fake.close();
  }
});

test('request() listens to a given AbortSignal only while the call runs, however it ends', async () => {
  const fake = await FakeActuator.start();
  const http = client({ defaultTimeout: 200 });
  try {
    fake.on('GET', '/health', { json: { status: 'UP' } });
    fake.on('GET', '/hang', { handler: () => undefined });
    const signal = new AbortController().signal;
    assert.is((await http.request(instance, fake.healthUrl, { signal })).status, 200);
    assert.is(getEventListeners(signal, 'abort').length, 0, 'after an answer');
    assert.is((await failure(http.request(instance, fake.endpointUrl('hang'), { signal }))).code, 'ETIMEDOUT');
    assert.is(getEventListeners(signal, 'abort').length, 0, 'after a time-out');
  } finally {
    await http.close();
    await fake.close();
  }
});

test('a body in several pieces is joined, repeated headers are one value, the query goes along; a non-http URL is refused', async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, [['Content-Type', 'application/json'], ['X-Many', 'a'], ['X-Many', 'b']]);
    res.write('{"status":');
    setImmediate(() => res.end('"UP"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const http = client();
  try {
    const { port } = server.address() as AddressInfo;
    const response = await http.request(instance, `http://127.0.0.1:${port}/actuator/health?x=1#ignored`);
    assert.is(response.body.toString(), '{"status":"UP"}');
    assert.is(response.headers['x-many'], 'a, b');
    assert.is(response.contentType, 'application/json');
    assert.equal(seen, ['/actuator/health?x=1']);
    const refused = await failure(http.request(instance, `ftp://127.0.0.1:${port}/actuator/health`));
    assert.is(refused.code, 'UND_ERR_INVALID_ARG');
    assert.equal(seen, ['/actuator/health?x=1'], 'nothing sent for the ftp URL');
  } finally {
    await http.close();
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
