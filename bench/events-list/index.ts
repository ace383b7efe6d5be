import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { DAEMON_NODE_FLAGS, machine, residentKb, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { JsonArrayReader } from './array-reader.js';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 20_000);
const EVENTS_PER_INSTANCE = Number(process.env.BENCH_EVENTS ?? 100);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SAMPLE_MS = 20;
/** Registrations in flight while the histories are built. */
const CONCURRENCY = 64;
/** Requests per connection in flight: fewer reads and writes on both sides for the same registrations. */
const PIPELINING = 4;
/** After building the histories, before measuring: the daemon's collector catches up. */
const SETTLE_MS = 5_000;
const GROWTH: FigureSpec = { name: 'events-list-rss-growth-mb', target: 64, kind: 'max', unit: 'MB' };
export const figures = [GROWTH];

/**
 * `GET /instances/events` with 20,000 instances holding 100 events each (2,000,000): the
 * daemon's RSS growth while one client reads the whole list as fast as it can.
 *
 * The histories are built through the public API, the cheapest honest way: each instance is
 * registered, then re-registered 99 times with a changed `metadata.v` (REGISTERED and 99
 * REGISTRATION_UPDATED; `event-store.max-events-per-instance: 100`, so nothing is compacted),
 * round after round over the fleet, so the global list interleaves the instances as a live one
 * does. Only `rest-api` runs: nothing monitors the (unreachable) health URLs. The registrations
 * are small (a name, a short health URL, one metadata key: ~260 bytes of JSON per event) so that
 * the baseline can build the whole body at all: V8 strings end at 2^29 − 24 characters, and
 * 2,000,000 events of a typical registration (~400 bytes) are past that.
 *
 * The RSS peak is sampled from /proc every 20 ms and also read as VmHWM after resetting it
 * (`/proc/<pid>/clear_refs`) just before the request; growth = peak − RSS just before. The client
 * checks the body as it arrives (bench/events-list/array-reader.ts): a closed array of exactly
 * 100 events per instance, versions 0 to 99 in order, without holding it.
 *
 * Baseline, in the same run and interleaved: a bare node:http server holding the same events
 * (bench/events-list/whole-body-server.ts) answering as Vigil did before the list was streamed,
 * a view per event and `JSON.stringify` of the whole array; its growth measured the same way.
 */
export async function run(): Promise<Figure[]> {
  const total = INSTANCES * EVENTS_PER_INSTANCE;
  console.log(`events-list: ${machine()}; ${INSTANCES} instances x ${EVENTS_PER_INSTANCE} events, ${ROUNDS} rounds`);
  const config = join(tmpdir(), `vigil-bench-events-list-${process.pid}.yaml`);
  writeFileSync(config, `host: 127.0.0.1\nport: 0\nlog-level: warn\nplugins: [rest-api]\nevent-store:\n  max-events-per-instance: ${EVENTS_PER_INSTANCE}\n`);
  const started: ChildProcess[] = [];
  try {
    const vigil = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
    started.push(vigil.child);
    const fillStart = performance.now();
    await buildHistories(vigil.url);
    const fillS = (performance.now() - fillStart) / 1000;
    console.log(`  ${total} events recorded in ${round(fillS)} s (${Math.round(total / fillS)}/s); daemon RSS ${mb(residentKb(vigil.child.pid!))} MB`);

    const baseline = await startProcess(['--expose-gc', '--max-old-space-size=8192', join(root, 'dist', 'bench', 'events-list', 'whole-body-server.js'), vigil.url]);
    started.push(baseline.child);
    await ready(baseline.url);
    console.log(`  baseline holds the same events; its RSS ${mb(residentKb(baseline.child.pid!))} MB`);
    await sleep(SETTLE_MS);

    const ours: Measured[] = [];
    const theirs: Measured[] = [];
    for (let index = 0; index < ROUNDS; index += 1) {
      const order = index % 2 === 0 ? ['vigil', 'baseline'] : ['baseline', 'vigil'];
      for (const who of order) {
        const measured = who === 'vigil'
          ? await measure(vigil.child.pid!, `${vigil.url}/instances/events`, INSTANCES, EVENTS_PER_INSTANCE)
          : await measure(baseline.child.pid!, `${baseline.url}/`, INSTANCES, EVENTS_PER_INSTANCE);
        (who === 'vigil' ? ours : theirs).push(measured);
        console.log(`  round ${index + 1} ${who}: ${describe(measured)}`);
      }
    }
    const growth = Math.max(...ours.map((m) => m.growthKb)) / 1024;
    const baselineGrowth = Math.max(...theirs.map((m) => m.growthKb)) / 1024;
    return [{
      ...GROWTH, value: growth, ratio: growth / baselineGrowth,
      baseline: `bare node:http holding the same ${total} events answering with JSON.stringify of the whole array (as Vigil did before): growth ${round(baselineGrowth)} MB (per round ${theirs.map((m) => round(m.growthKb / 1024)).join(', ')}); ` +
        `vigil per round ${ours.map((m) => round(m.growthKb / 1024)).join(', ')} MB (the largest reported) from ${mb(ours[0]!.beforeKb)} MB, ` +
        `${round(ours[0]!.bytes / 1e6)} MB of JSON in ${round(ours[0]!.ms / 1000)} s; histories built by ${INSTANCES} registrations and ${total - INSTANCES} re-registrations in ${round(fillS)} s`,
    }];
  } finally {
    await Promise.all(started.map(stopProcess));
    rmSync(config, { force: true });
  }
}

/** Registers every instance, then re-registers each with a new `metadata.v`, one round over the fleet at a time. */
async function buildHistories(url: string): Promise<void> {
  const agent = new Agent({ connections: CONCURRENCY / PIPELINING, pipelining: PIPELINING });
  let next = 0;
  const worker = async () => {
    for (let j = next++; j < INSTANCES * EVENTS_PER_INSTANCE; j = next++) {
      const n = j % INSTANCES;
      const body = JSON.stringify({
        name: `app-${n % 100}`,
        healthUrl: `http://10.${n >> 16}.${(n >> 8) & 255}.${n & 255}/h`,
        metadata: { v: String(Math.floor(j / INSTANCES)) },
      });
      const res = await request(`${url}/instances`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`registration ${j} failed: ${res.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await agent.close();
  }
}

/** The baseline loads its copy after it listens; `/` answers once it holds them. */
async function ready(url: string): Promise<void> {
  const res = await request(`${url}/ready`);
  const text = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`baseline not ready: ${res.statusCode} ${text}`);
}

interface Measured {
  readonly beforeKb: number;
  readonly peakKb: number;
  readonly growthKb: number;
  /** Whether the peak includes VmHWM (reset just before), not only the samples. */
  readonly hwm: boolean;
  readonly bytes: number;
  readonly ms: number;
}

/** One GET read to the end, checked; the server's RSS just before and its peak meanwhile. */
async function measure(pid: number, url: string, instances: number, perInstance: number): Promise<Measured> {
  const beforeKb = residentKb(pid);
  const hwm = resetPeak(pid);
  let peakKb = beforeKb;
  const timer = setInterval(() => { peakKb = Math.max(peakKb, residentKb(pid)); }, SAMPLE_MS);
  const start = performance.now();
  let bytes: number;
  try {
    bytes = await readChecked(url, instances, perInstance);
  } finally {
    clearInterval(timer);
  }
  const ms = performance.now() - start;
  peakKb = Math.max(peakKb, residentKb(pid), hwm ? peakResidentKb(pid) : 0);
  return { beforeKb, peakKb, growthKb: peakKb - beforeKb, hwm, bytes, ms };
}

/** Resets the process's VmHWM to its current RSS (Linux ≥ 4.0); false where that is not allowed. */
function resetPeak(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

function peakResidentKb(pid: number): number {
  const match = /^VmHWM:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmHWM for process ${pid}`);
  return Number(match[1]);
}

/**
 * Reads the whole array as it arrives and checks it: every element an event, `perInstance` of
 * each of `instances` instances, each instance's versions 0, 1, 2… in order. Returns the body's size.
 */
function readChecked(url: string, instances: number, perInstance: number): Promise<number> {
  const versions = new Map<string, number>();
  const reader = new JsonArrayReader((item) => {
    const event = item as { instance?: unknown; version?: unknown; type?: unknown };
    if (typeof event.instance !== 'string' || typeof event.type !== 'string') throw new Error(`not an event: ${JSON.stringify(item)}`);
    const expected = versions.get(event.instance) ?? 0;
    if (event.version !== expected) throw new Error(`instance ${event.instance}: version ${String(event.version)} where ${expected} was due`);
    if (event.type !== (expected === 0 ? 'REGISTERED' : 'REGISTRATION_UPDATED')) throw new Error(`instance ${event.instance} version ${expected}: ${event.type}`);
    versions.set(event.instance, expected + 1);
  });
  return new Promise((resolve, reject) => {
    get(url, (res) => {
      if (res.statusCode !== 200) reject(new Error(`GET ${url}: ${res.statusCode}`));
      let bytes = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        bytes += Buffer.byteLength(chunk);
        try {
          reader.feed(chunk);
        } catch (error) {
          res.destroy();
          reject(error instanceof Error ? error : new Error(String(error)));
        }
      });
      res.on('error', reject);
      res.on('end', () => {
        if (!reader.closed) return reject(new Error(`GET ${url}: the array never closed after ${reader.count} events`));
        const short = [...versions.values()].filter((count) => count !== perInstance).length;
        if (versions.size !== instances || short > 0 || reader.count !== instances * perInstance) {
          return reject(new Error(`GET ${url}: ${reader.count} events of ${versions.size} instances, ${short} without ${perInstance}`));
        }
        resolve(bytes);
      });
    }).on('error', reject);
  });
}

function describe(m: Measured): string {
  return `RSS ${mb(m.beforeKb)} MB before, ${mb(m.peakKb)} MB peak (${m.hwm ? 'VmHWM and ' : ''}samples every ${SAMPLE_MS} ms), ` +
    `growth ${mb(m.growthKb)} MB; ${round(m.bytes / 1e6)} MB of JSON in ${round(m.ms / 1000)} s`;
}

function mb(kb: number): number {
  return round(kb / 1024);
}
