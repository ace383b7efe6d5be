import { readFileSync } from 'node:fs';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, eventually } from '../support/http.js';
import { startDaemon } from '../support/daemon-process.js';
import { LONG } from './support/settings.js';

const MB = 1024 * 1024;
/** The case is 60 instances answering 10 MiB; the default run asks for less, the same way past the budget. */
const INSTANCES = LONG ? 60 : 24;
const ANSWER_BYTES = (LONG ? 10 : 4) * MB;
/** The defaults under test: `proxy.fan-out-max-bytes` and `proxy.max-concurrent-fan-outs`. */
const BUDGET = 32 * MB;
const SLOTS = 4;
/** `proxy.fan-out.concurrency`'s default: how many instances of one fan-out are called at once. */
const PER_FAN_OUT = 8;
/**
 * How much the daemon's resident memory may grow over the run. Four fan-outs each holding their
 * 32 MiB budget, plus one answer being written per fan-out, fit well inside it; without the
 * budget the same run held every answer (4 × 96 MiB as bytes, again as text, again as JSON).
 */
const MAX_RSS_GROWTH = 400 * MB;

interface Result {
  readonly instanceId: string;
  readonly status: number;
  readonly body?: string;
  readonly cut?: boolean;
  readonly message?: string;
}

/**
 * One server playing every instance (`/i/<n>/actuator/...`): an index, health, and an `env` of
 * ANSWER_BYTES, which it holds back while `holding` is set so that fan-outs stay in flight.
 */
class BigInstances {
  readonly #answer = Buffer.alloc(ANSWER_BYTES, 'e');
  readonly held: ServerResponse[] = [];
  envRequests = 0;
  holding = true;

  private constructor(private readonly server: Server, readonly base: string) {}

  static async start(): Promise<BigInstances> {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const instances = new BigInstances(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req, res) => instances.#serve(req.url ?? '/', res));
    return instances;
  }

  #serve(url: string, res: ServerResponse): void {
    res.on('error', () => undefined); // a cut answer is a reset connection
    const match = /^\/i\/(\d+)\/actuator(\/[a-z]+)?$/.exec(url);
    if (!match) return void res.writeHead(404).end();
    const base = `${this.base}/i/${match[1]}/actuator`;
    const json = (body: unknown) => res.writeHead(200, { 'content-type': 'application/vnd.spring-boot.actuator.v3+json' }).end(JSON.stringify(body));
    if (match[2] === undefined) return void json({ _links: { self: { href: base }, health: { href: `${base}/health` }, env: { href: `${base}/env` } } });
    if (match[2] === '/health') return void json({ status: 'UP' });
    if (match[2] !== '/env') return void res.writeHead(404).end();
    this.envRequests += 1;
    if (this.holding) this.held.push(res);
    else this.#answerEnv(res);
  }

  #answerEnv(res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': ANSWER_BYTES }).end(this.#answer);
  }

  release(): void {
    this.holding = false;
    for (const res of this.held.splice(0)) this.#answerEnv(res);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function residentBytes(pid: number): number {
  return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;
}

test(`fan-out memory: ${INSTANCES} instances answering ${ANSWER_BYTES / MB} MiB, ${SLOTS} fan-outs at once and one more: a 32 MiB budget each, 503 beyond, RSS bounded`, async () => {
  const instances = await BigInstances.start();
  const daemon = await startDaemon({ plugins: ['rest-api', 'proxy', 'monitor', 'detect-index'], 'log-level': 'info' });
  try {
    const base = daemon.url;
    const ids: string[] = [];
    for (let n = 0; n < INSTANCES; n += 1) {
      const reply = await call('POST', `${base}/instances`, { json: { name: 'big', healthUrl: `${instances.base}/i/${n}/actuator/health`, managementUrl: `${instances.base}/i/${n}/actuator` } });
      assert.is(reply.status, 201, reply.text);
      ids.push((reply.json as { id: string }).id);
    }
    // Every instance's endpoints detected (the fan-out detects what is not yet), with small answers.
    await eventually(async () => {
      const reply = await call('GET', `${base}/applications/big/actuator/health`);
      return reply.status === 200 && (reply.json as Result[]).every((result) => result.status === 200);
    }, 'health through the fan-out from every instance', 20_000);
    const baseline = residentBytes(daemon.child.pid!);

    // SLOTS fan-outs in flight, each with PER_FAN_OUT instances called and held.
    const fanOuts = Array.from({ length: SLOTS }, () => call('GET', `${base}/applications/big/actuator/env`));
    await eventually(() => instances.held.length >= SLOTS * PER_FAN_OUT, `${SLOTS * PER_FAN_OUT} held env requests`, 20_000);
    const refused = await call('GET', `${base}/applications/big/actuator/env`);
    assert.is(refused.status, 503, refused.text);
    assert.is(refused.headers.get('retry-after'), '1');
    assert.match((refused.json as { message: string }).message, /proxy\.max-concurrent-fan-outs = 4/);
    assert.is(instances.envRequests, SLOTS * PER_FAN_OUT, 'the refused fan-out called no instance');

    instances.release();
    for (const reply of await Promise.all(fanOuts)) {
      assert.is(reply.status, 200);
      const results = reply.json as Result[];
      assert.equal(results.map((result) => result.instanceId).sort(), [...ids].sort(), 'one result per instance');
      const kept = results.filter((result) => result.body !== undefined);
      const cut = results.filter((result) => result.cut === true);
      assert.ok(kept.length > 0, 'answers that fit are kept');
      assert.ok(kept.every((result) => result.status === 200 && result.body!.length === ANSWER_BYTES), 'kept answers are whole');
      assert.ok(kept.length * ANSWER_BYTES <= BUDGET, `${kept.length} answers kept`);
      assert.is(kept.length + cut.length, INSTANCES, 'every other answer is named as cut');
      for (const result of cut) assert.equal(Object.keys(result).sort(), ['cut', 'instanceId', 'message', 'status']);
    }

    const peak = daemon.peakRss()!;
    console.log(`  fan-out memory: daemon RSS ${Math.round(baseline / MB)} MB before, peak ${Math.round(peak / MB)} MB`);
    assert.ok(peak - baseline < MAX_RSS_GROWTH, `RSS grew by ${Math.round((peak - baseline) / MB)} MB`);
    assert.is((await call('GET', `${base}/applications/big/actuator/health`)).status, 200, 'slots are free again');
    assert.equal(daemon.logs().filter((line) => / error /.test(line)), []);
  } finally {
    instances.release();
    const { code } = await daemon.stop();
    await instances.close();
    assert.is(code, 0);
  }
});

test.run();
