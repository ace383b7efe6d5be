import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceHttpClient, InstanceResponse } from '../../../core/kits/services/index.js';
import { parseProbeEntry, type ProbeEntry } from '../../../plugins/detect-probe/probe-entry.js';
import { probeStrategy } from '../../../plugins/detect-probe/probe-strategy.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { closedPort, fetchClient, instanceWith, recordingLog, type RecordedCall } from '../detect-index/fixtures.js';

const entries = (...list: string[]): ProbeEntry[] => list.map((entry) => parseProbeEntry(entry)!);
const ok = { status: 204 };

async function probe(managementUrl: string | null, list: ProbeEntry[], client: InstanceHttpClient = fetchClient()) {
  const strategy = probeStrategy({ entries: list, http: () => client, log: recordingLog().log });
  return strategy.detect(instanceWith({ managementUrl }), new AbortController().signal);
}

test('OPTIONS per entry; 2xx means present at the probe URL; id:path and first-listed wins', async () => {
  const fake = await FakeActuator.start({ links: null });
  for (const path of ['/health', '/stats', '/metrics', '/dump', '/env']) fake.on('OPTIONS', path, ok);
  fake.on('OPTIONS', '/info', { status: 200, body: 'GET,HEAD,OPTIONS' });
  try {
    const calls: RecordedCall[] = [];
    const found = await probe(fake.managementUrl, entries('health', 'metrics:stats', 'metrics', 'threaddump:dump', 'threaddump', 'info', 'beans', 'env:/env'), fetchClient(calls));
    assert.equal(found, [
      { id: 'health', url: fake.endpointUrl('health') },
      { id: 'metrics', url: fake.endpointUrl('stats') },
      { id: 'threaddump', url: fake.endpointUrl('dump') },
      { id: 'info', url: fake.endpointUrl('info') },
      { id: 'env', url: fake.endpointUrl('env') },
    ]);
    const probed = fake.requests.map((r) => `${r.method} ${r.path}`).sort();
    assert.equal(probed, ['beans', 'dump', 'env', 'health', 'info', 'metrics', 'stats', 'threaddump'].map((p) => `OPTIONS /actuator/${p}`));
    assert.ok(calls.every((call) => call.options.method === 'OPTIONS'));
  } finally {
    await fake.close();
  }
});

test('a shared id falls to the next listed entry when the first is absent', async () => {
  const fake = await FakeActuator.start({ links: null });
  fake.on('OPTIONS', '/metrics', ok);
  try {
    assert.equal(await probe(fake.managementUrl, entries('metrics:stats', 'metrics')), [{ id: 'metrics', url: fake.endpointUrl('metrics') }]);
  } finally {
    await fake.close();
  }
});

test('404, 500, a reset connection and 3xx are all "absent"', async () => {
  const fake = await FakeActuator.start({ links: null });
  fake.on('OPTIONS', '/health', ok);
  fake.on('OPTIONS', '/env', { status: 500, body: 'boom' });
  fake.on('OPTIONS', '/beans', { handler: (req) => req.socket.destroy() });
  fake.on('OPTIONS', '/info', { status: 302, headers: { location: '/elsewhere' } });
  try {
    assert.equal(await probe(fake.managementUrl, entries('health', 'env', 'beans', 'info', 'metrics')), [{ id: 'health', url: fake.endpointUrl('health') }]);
    assert.is(fake.requestsTo('/metrics', 'OPTIONS').length, 1, 'metrics was probed and got the fake\'s 404');
  } finally {
    await fake.close();
  }
});

test('an unreachable instance or no managementUrl yields nothing; no managementUrl sends nothing', async () => {
  const port = await closedPort();
  assert.equal(await probe(`http://127.0.0.1:${port}/actuator`, entries('health', 'info')), []);
  const calls: RecordedCall[] = [];
  assert.equal(await probe(null, entries('health'), fetchClient(calls)), []);
  assert.is(calls.length, 0);
});

test('URLs are joined with one slash; one path listed twice is probed once', async () => {
  const urls: string[] = [];
  const client: InstanceHttpClient = { request: async (_i, url): Promise<InstanceResponse> => (urls.push(url), { status: 200, headers: {}, contentType: '', body: Buffer.alloc(0) }) };
  const found = await probe('http://app/mgmt//', entries('health', 'health', 'ping:/health', 'x:a/b'), client);
  assert.equal(urls, ['http://app/mgmt/health', 'http://app/mgmt/a/b']);
  assert.equal(found, [{ id: 'health', url: 'http://app/mgmt/health' }, { id: 'ping', url: 'http://app/mgmt/health' }, { id: 'x', url: 'http://app/mgmt/a/b' }]);
});

/** A client whose calls stay open until released, to observe how many run at once. */
function gatedClient() {
  const waiting: (() => void)[] = [];
  let running = 0;
  let peak = 0;
  const client: InstanceHttpClient = {
    request: (_instance, _url, options = {}) => new Promise<InstanceResponse>((resolve, reject) => {
      running += 1;
      peak = Math.max(peak, running);
      const done = () => {
        running -= 1;
        resolve({ status: 200, headers: {}, contentType: '', body: Buffer.alloc(0) });
      };
      waiting.push(done);
      options.signal?.addEventListener('abort', () => reject(options.signal!.reason), { once: true });
    }),
  };
  return { client, waiting, peak: () => peak, running: () => running };
}

test('at most `concurrency` probes run at once, and all of them run', async () => {
  const gate = gatedClient();
  const list = entries(...Array.from({ length: 10 }, (_, i) => `e${i}`));
  const strategy = probeStrategy({ entries: list, http: () => gate.client, log: recordingLog().log, concurrency: 3 });
  const result = strategy.detect(instanceWith({ managementUrl: 'http://app/actuator' }), new AbortController().signal);
  let released = 0;
  // Release one call at a time; each release lets exactly one more start. The turn cap only
  // turns a hang (a probe that never starts) into a failure.
  for (let turn = 0; released < 10; turn += 1) {
    assert.ok(turn < 1000, `only ${released} of 10 probes ran`);
    await new Promise<void>((resolve) => setImmediate(resolve));
    const next = gate.waiting.shift();
    if (!next) continue;
    next();
    released += 1;
  }
  assert.is((await result).length, 10);
  assert.is(gate.peak(), 3);
});

test('an abort stops taking new probes and rejects', async () => {
  const gate = gatedClient();
  const controller = new AbortController();
  const strategy = probeStrategy({ entries: entries('a', 'b', 'c', 'd', 'e'), http: () => gate.client, log: recordingLog().log, concurrency: 2 });
  const result = strategy.detect(instanceWith({ managementUrl: 'http://app/actuator' }), controller.signal);
  await new Promise<void>((resolve) => setImmediate(resolve));
  assert.is(gate.waiting.length, 2);
  controller.abort(new Error('shutdown'));
  await result.then(() => assert.unreachable('resolved'), (error: unknown) => assert.match(String(error), /shutdown/));
  assert.is(gate.waiting.length, 2, 'no probe started after the abort');
});

test('parseProbeEntry: id, id:path, and what is rejected', () => {
  assert.equal(parseProbeEntry('health'), { id: 'health', path: 'health' });
  assert.equal(parseProbeEntry('threaddump:dump'), { id: 'threaddump', path: 'dump' });
  assert.equal(parseProbeEntry('x:/a/b:c'), { id: 'x', path: 'a/b:c' });
  assert.equal(parseProbeEntry('x:/'), { id: 'x', path: 'x' });
  for (const bad of ['', ':dump', 'dump:', 'a b', 'a/b', ' health', 'a:b c']) assert.is(parseProbeEntry(bad), undefined, bad);
});

test.run();
