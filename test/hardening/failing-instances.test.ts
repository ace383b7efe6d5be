import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { InstanceEvent, StatusInfo } from '../../core/domain/index.js';
import { startTestKernel, type TestKernel } from '../../bin/testing.js';
import { FakeActuator } from '../support/fake-actuator.js';
import { call, eventually } from '../support/http.js';
import { FaultyInstance, MB, type Fault } from './support/faulty-instances.js';

/**
 * Every health call gets this long; the faults that hang are judged inside that window. It stays
 * well under the status call's own cut-off, |status-interval - 1 s| = 950 ms here, so the
 * per-request timeout is what ends a hanging call.
 */
const TIMEOUT_MS = 600;
const MONITOR = {
  'status-interval': '50ms',
  'status-lifetime': '0ms',
  'info-interval': '1h',
  'default-timeout': `${TIMEOUT_MS}ms`,
  'default-retries': 0,
};

interface Row {
  readonly fault: Fault;
  /** The status the instance must end in, exactly. */
  readonly ends: StatusInfo;
  /** Its call is still open while the healthy instance's changes are recorded. */
  readonly hangs?: boolean;
  /** A bound on what the fake could push into the connection before Vigil dropped it. */
  readonly maxBytesSent?: number;
}

const timedOut: StatusInfo = { status: 'OFFLINE', details: { message: `no complete answer within ${TIMEOUT_MS} ms`, exception: 'ETIMEDOUT' } };
const tooLarge: StatusInfo = { status: 'OFFLINE', details: { message: 'the response body exceeds 1048576 bytes', exception: 'EBODYTOOLARGE' } };

const MATRIX: readonly Row[] = [
  { fault: 'never answers', ends: timedOut, hangs: true },
  { fault: 'answers after the timeout', ends: timedOut, hangs: true },
  // The deadline covers the body too: a byte every 100 ms never completes 100 bytes in time.
  { fault: 'drips bytes slowly', ends: timedOut, hangs: true, maxBytesSent: 99 },
  { fault: 'resets the connection', ends: { status: 'OFFLINE', details: { message: 'read ECONNRESET', exception: 'ECONNRESET' } } },
  { fault: 'returns garbage', ends: { status: 'OFFLINE', details: { message: 'Response does not match the HTTP/1.1 protocol (Expected HTTP/, RTSP/ or ICE/)', exception: 'ECALLFAILED' } } },
  // Refused on its Content-Length: what got through is only what the socket buffers took before the close.
  { fault: 'returns a 100 MB health body', ends: tooLarge, maxBytesSent: 16 * MB },
  // No length to refuse on: read up to the 1 MiB cap, then the connection is dropped.
  { fault: 'returns a 100 MB chunked health body', ends: tooLarge, maxBytesSent: 16 * MB },
  { fault: 'closes mid-body', ends: { status: 'OFFLINE', details: { message: 'other side closed', exception: 'UND_ERR_SOCKET' } } },
  // A body nested too deeply to serialise again is not taken as JSON: UP by its 200, without details.
  { fault: 'nests its JSON 5,000 deep', ends: { status: 'UP', details: {} } },
];

function statusChange(tk: TestKernel, id: string, status: string, afterVersion = -1, timeoutMs = 10_000): Promise<InstanceEvent & { type: 'STATUS_CHANGED' }> {
  return tk.waitForEvent((e) => e.instance === id && e.type === 'STATUS_CHANGED' && e.version > afterVersion && e.statusInfo.status === status,
    `STATUS_CHANGED ${status} of ${id}`, timeoutMs) as Promise<InstanceEvent & { type: 'STATUS_CHANGED' }>;
}

async function register(tk: TestKernel, name: string, healthUrl: string): Promise<string> {
  const reply = await call('POST', `${tk.url}/instances`, { json: { name, healthUrl } });
  assert.is(reply.status, 201, reply.text);
  return (reply.json as { id: string }).id;
}

test('fault matrix: each failing instance ends in its exact status, while a healthy one is checked on time and memory stays bounded', async () => {
  const faulty = new Map<Fault, FaultyInstance>();
  for (const row of MATRIX) {
    faulty.set(row.fault, await FaultyInstance.start(row.fault, { lateByMs: TIMEOUT_MS + 300, dripEveryMs: 100 }));
  }
  const flips = await FaultyInstance.start('changes status every check');
  const healthy = await FakeActuator.start({ links: null });
  const tk = await startTestKernel({ plugins: ['rest-api', 'sse', 'monitor'], config: { 'log-level': 'info', monitor: MONITOR } });
  try {
    const ids = new Map<Fault, string>();
    for (const row of MATRIX) ids.set(row.fault, await register(tk, row.fault, faulty.get(row.fault)!.healthUrl));
    const flipsId = await register(tk, 'flips', flips.healthUrl);
    const healthyId = await register(tk, 'healthy', healthy.healthUrl);

    // While every hanging call is open, the healthy instance is polled and each change it makes is recorded.
    await Promise.all(MATRIX.filter((row) => row.hangs).map((row) => faulty.get(row.fault)!.requestNumber(1)));
    const up = await statusChange(tk, healthyId, 'UP');
    const pollsBefore = healthy.requestsTo('/health').length;
    healthy.setHealth(503, { status: 'DOWN' });
    const down = await statusChange(tk, healthyId, 'DOWN', up.version);
    assert.equal(down.statusInfo, { status: 'DOWN', details: {} });
    healthy.setHealth(200, { status: 'UP' });
    await statusChange(tk, healthyId, 'UP', down.version);
    assert.ok(healthy.requestsTo('/health').length >= pollsBefore + 2, 'the healthy instance kept being polled');
    for (const row of MATRIX.filter((r) => r.hangs)) {
      const fake = faulty.get(row.fault)!;
      assert.ok(fake.pending > 0, `${row.fault}: its first call is still open while the healthy instance changed twice`);
      assert.is(tk.kernel.registry.get(ids.get(row.fault)!)!.statusInfo.status, 'UNKNOWN', `${row.fault}: no verdict yet`);
    }

    for (const row of MATRIX) {
      const event = await statusChange(tk, ids.get(row.fault)!, row.ends.status);
      assert.equal(event.statusInfo, row.ends, row.fault);
      if (row.maxBytesSent === undefined) continue;
      const perRequest = faulty.get(row.fault)!.bytesPerRequest;
      await eventually(() => perRequest.length > 0, `${row.fault}: a dropped connection`);
      const most = Math.max(...perRequest);
      assert.ok(most <= row.maxBytesSent, `${row.fault}: ${most} bytes went out on one call before the connection was dropped`);
      if (row.fault.startsWith('returns a 100 MB')) console.log(`  ${row.fault}: at most ${(most / MB).toFixed(1)} MB of 100 MB left the fake per call before Vigil dropped it (${perRequest.length} calls)`);
    }

    // A late answer changes nothing: Vigil had given up and closed the connection.
    const late = faulty.get('answers after the timeout')!;
    await eventually(() => late.lateAnswers > 0, 'the late answer', 10_000);
    const lateId = ids.get('answers after the timeout')!;
    assert.equal(tk.kernel.registry.get(lateId)!.statusInfo, timedOut);
    assert.equal(tk.kernel.registry.eventsOf(lateId).filter((e) => e.type === 'STATUS_CHANGED').map((e) => e.type === 'STATUS_CHANGED' && e.statusInfo.status), ['OFFLINE']);

    // Every answer of the flapping instance is one recorded change, in the order it gave them.
    const sixth = await tk.waitForEvent((e) => e.instance === flipsId && e.type === 'STATUS_CHANGED' && tk.kernel.registry.eventsOf(flipsId).filter((x) => x.type === 'STATUS_CHANGED').length >= 6, 'six changes of the flapping instance');
    assert.ok(sixth);
    const recorded = tk.kernel.registry.eventsOf(flipsId).filter((e) => e.type === 'STATUS_CHANGED').map((e) => (e.type === 'STATUS_CHANGED' ? e.statusInfo : undefined));
    assert.equal(recorded.slice(0, 6), flips.answers.slice(0, 6).map((status) => ({ status, details: {} })));

    // The daemon still answers, every instance included (the 5,000-deep body would make this a 500).
    const list = await call('GET', `${tk.url}/instances`);
    assert.is(list.status, 200);
    assert.is((list.json as unknown[]).length, MATRIX.length + 2);
    assert.equal(tk.logs().filter((line) => / error /.test(line)), []);
  } finally {
    await tk.stop();
    for (const fake of [...faulty.values(), flips]) await fake.close();
    await healthy.close();
  }
});

test.run();
