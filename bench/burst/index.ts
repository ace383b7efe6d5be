import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Pool, request } from 'undici';
import { ask, startChild } from '../monitoring/harness.js';
import type { FleetReply, FleetRequest } from '../monitoring/fleet-protocol.js';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const BURST = Number(process.env.BENCH_BURST ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
/**
 * The niceness of the processes that stand in for other hosts: the 1,000 starting applications
 * and the fleet that answers their checks. Elsewhere in a real deployment, here they share the
 * daemon's 2 cores; at the default priority the kernel's scheduler hands them the daemon's core
 * in the middle of a burst, and that delay is the machine's, not Vigil's. BENCH_NICE=0 runs them
 * at the daemon's priority (bench/REPORT.md has both).
 */
const NICE = Number(process.env.BENCH_NICE ?? 10);
/**
 * The instance behind the proxied `GET` stands for another host too, but it is on the measured
 * path: lowering it would slow the requests measured. It runs as a real-time process
 * (SCHED_FIFO) instead, so that when the daemon's request reaches it, it answers at once, as on a
 * host of its own, rather than waiting for one of the 2 cores the daemon's burst keeps busy (it
 * uses ~0.1 of a core, and only when asked). BENCH_TARGET_RT=0 leaves it at the default priority;
 * where real-time priority is refused (no CAP_SYS_NICE) the run says so and goes on without it.
 */
const TARGET_RT = process.env.BENCH_TARGET_RT !== '0';
/**
 * BENCH_OPEN_RATE=N: each client sends N requests a second whatever the answers do, over
 * OPEN_CONNECTIONS keep-alive connections opened beforehand, and a request's latency counts from
 * when it was due. The default (0) is one request after the other on one connection, which
 * samples a stall once however long it lasts (bench/REPORT.md has both).
 */
const OPEN_RATE = Number(process.env.BENCH_OPEN_RATE ?? 0);
const OPEN_CONNECTIONS = 32;
/** How long the quiet daemon is measured each round. */
const QUIET_MS = 3000;
/** Ports of the fake fleet: a fleet is many hosts, not one. */
const FLEET_PORTS = 100;
/** The burst is over when every instance of it had its info read (UP, detected, info), or after this. */
const BURST_LIMIT_MS = 120_000;

const P99_RATIO: FigureSpec = { name: 'burst-read-p99-ratio', target: 5, kind: 'max' };
const PROXY_FAILURES: FigureSpec = { name: 'burst-proxy-failures', target: 0, kind: 'max' };
export const figures = [P99_RATIO, PROXY_FAILURES];

/** Latencies (ms) of one kind of request, and how many of them failed. */
interface Sample {
  readonly latencies: number[];
  failures: number;
  readonly reasons: Set<string>;
}

const newSample = (): Sample => ({ latencies: [], failures: 0, reasons: new Set() });

/** One request; its latency counted from `since`. */
async function askOnce(pool: Pool, path: string, sample: Sample, since: number): Promise<void> {
  try {
    const res = await request(`http://x${path}`, { dispatcher: pool, headers: { accept: 'application/json' } });
    await res.body.dump();
    if (res.statusCode !== 200) {
      sample.failures += 1;
      sample.reasons.add(String(res.statusCode));
    }
  } catch (error) {
    sample.failures += 1;
    sample.reasons.add((error as { code?: string }).code ?? String(error));
  }
  sample.latencies.push(performance.now() - since);
}

/** Requests `path` one after the other until `until` resolves, noting each one's latency. */
async function keepAsking(pool: Pool, path: string, sample: Sample, until: Promise<unknown>): Promise<void> {
  let done = false;
  void until.finally(() => { done = true; });
  while (!done) await askOnce(pool, path, sample, performance.now());
}

/** Requests `path` OPEN_RATE times a second until `until` resolves, each one's latency from when it was due. */
async function keepSending(pool: Pool, path: string, sample: Sample, until: Promise<unknown>): Promise<void> {
  let done = false;
  void until.finally(() => { done = true; });
  const interval = 1000 / OPEN_RATE;
  const start = performance.now();
  const sent: Promise<void>[] = [];
  for (let index = 0; !done; index += 1) {
    const due = start + index * interval;
    const wait = due - performance.now();
    if (wait > 0) await sleep(wait);
    sent.push(askOnce(pool, path, sample, due));
  }
  await Promise.all(sent);
}

/** Opens every connection of the pool before anything is measured. */
async function openConnections(pool: Pool, path: string, count: number): Promise<void> {
  await Promise.all(Array.from({ length: count }, async () => {
    const res = await request(`http://x${path}`, { dispatcher: pool });
    await res.body.dump();
  }));
}

function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? Number.NaN;
}

/** Reads and proxied reads, one client each, while `phase` runs (started once their connections are open). */
async function measure(url: string, id: string, startPhase: () => Promise<unknown>): Promise<{ read: Sample; proxy: Sample }> {
  const read = newSample();
  const proxy = newSample();
  const connections = OPEN_RATE > 0 ? OPEN_CONNECTIONS : 1;
  const readPool = new Pool(url, { connections });
  const proxyPool = new Pool(url, { connections });
  const ask = OPEN_RATE > 0 ? keepSending : keepAsking;
  try {
    await Promise.all([openConnections(readPool, `/instances/${id}`, connections), openConnections(proxyPool, `/instances/${id}/actuator/env`, connections)]);
    const phase = startPhase();
    await Promise.all([
      ask(readPool, `/instances/${id}`, read, phase),
      ask(proxyPool, `/instances/${id}/actuator/env`, proxy, phase),
      phase,
    ]);
  } finally {
    await Promise.all([readPool.close(), proxyPool.close()]);
  }
  return { read, proxy };
}

/**
 * `count` first registrations at once, each on its own connection, as that many starting
 * applications would: from a process of their own, so the clients that measure latency never
 * wait behind the load generator's event loop. The process starts, loads undici and builds its
 * bodies before the measured window, says "ready", and sends everything when told "go": 1,000
 * applications start on their own hosts, and node's own start-up (~0.3 s of a core) is not load
 * the daemon's machine would carry.
 */
const REGISTER_AT_ONCE = `
const { Agent, request } = require('undici');
const [url, portList, from, count] = process.argv.slice(1);
const ports = portList.split(',');
const agent = new Agent({ connections: Number(count), pipelining: 0 });
const bodies = Array.from({ length: Number(count) }, (_, i) => {
  const n = Number(from) + i;
  const base = 'http://127.0.0.1:' + ports[n % ports.length] + '/i/' + n;
  return JSON.stringify({ name: 'burst-' + (n % 50), healthUrl: base + '/actuator/health', managementUrl: base + '/actuator', serviceUrl: base + '/' });
});
const register = (body) => request(url + '/instances', { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body })
  .then(async (res) => { await res.body.dump(); return res.statusCode; });
process.stdin.once('data', () => {
  Promise.all(bodies.map(register)).then((statuses) => {
    const refused = statuses.filter((status) => status !== 201);
    if (refused.length > 0) { console.error(refused.length + ' registrations refused: ' + [...new Set(refused)].join(', ')); process.exit(1); }
    process.exit(0);
  }, (error) => { console.error(error); process.exit(1); });
});
process.stdout.write('ready\\n');
`;

/** A registering process, started and ready; `go()` sends its registrations and resolves when all were accepted. */
async function readyToRegister(url: string, ports: readonly number[], from: number, count: number): Promise<{ go: () => Promise<void> }> {
  const child = spawn(process.execPath, ['-e', REGISTER_AT_ONCE, url, ports.join(','), String(from), String(count)], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  standInForOtherHosts(child);
  const exited = once(child, 'exit') as Promise<[number | null]>;
  await Promise.race([
    once(child.stdout, 'data'),
    exited.then(([code]) => { throw new Error(`the registering process exited with ${code} before it was ready`); }),
  ]);
  return {
    go: async () => {
      child.stdin.end('go\n');
      const [code] = await exited;
      if (code !== 0) throw new Error(`the registering process exited with ${code}`);
    },
  };
}

/** Runs the proxied instance as a real-time process (TARGET_RT): how it ran, for the report. */
function answerAtOnce(child: ChildProcess): string {
  if (!TARGET_RT || child.pid === undefined) return 'the proxied instance at the default priority';
  try {
    execFileSync('chrt', ['--all-tasks', '--fifo', '--pid', '10', String(child.pid)], { stdio: ['ignore', 'ignore', 'pipe'] });
    return 'the proxied instance real-time (SCHED_FIFO 10)';
  } catch (error) {
    const reason = String((error as { stderr?: Buffer }).stderr ?? error).trim();
    console.log(`  the proxied instance stays at the default priority: chrt refused (${reason})`);
    return 'the proxied instance at the default priority (real-time refused)';
  }
}

/** Lowers the priority of a process that plays other hosts (NICE). */
function standInForOtherHosts(child: ChildProcess): void {
  if (NICE !== 0 && child.pid !== undefined) setPriority(child.pid, NICE);
}

/** Until the fleet saw `count` instances' info requested (each was checked UP, detected, read). */
async function followUpDone(fleet: ChildProcess, count: number): Promise<void> {
  const deadline = Date.now() + BURST_LIMIT_MS;
  for (;;) {
    const { infoSeen } = await ask<FleetRequest, FleetReply, 'progress'>(fleet, { type: 'progress' }, 'progress');
    if (infoSeen >= count) return;
    if (Date.now() > deadline) throw new Error(`only ${infoSeen} of ${count} instances had their info read within ${BURST_LIMIT_MS} ms`);
    await sleep(100);
  }
}

/**
 * Served while busy: the p99 latency of `GET /instances/{id}` and of a proxied `GET` on the
 * daemon as a new user runs it (the root config's plugins), measured while 1,000 applications
 * register for the first time at once and while the monitor does their follow-up work (health,
 * endpoint detection, info), against the same requests on the same daemon when quiet, in
 * alternating rounds. The figure is the median over rounds of the worse of the two ratios.
 */
export async function run(): Promise<Figure[]> {
  console.log(`burst: ${machine()}; ${ROUNDS} rounds of ${BURST} first registrations after one to warm up; the stand-ins for other hosts at nice ${NICE}; ${OPEN_RATE > 0 ? `open loop, ${OPEN_RATE} requests a second per client` : 'closed loop'}`);
  const started: ChildProcess[] = [];
  try {
    // One more burst than rounds: the first warms the daemon up and is not counted.
    const fleet = await startChild(join(root, 'dist', 'bench', 'monitoring', 'fake-fleet.js'), [String(BURST * (ROUNDS + 1)), String(FLEET_PORTS)]);
    started.push(fleet);
    standInForOtherHosts(fleet);
    const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
    const target = await startProcess([join(root, 'dist', 'bench', 'proxy', 'fake-instance.js')]);
    started.push(target.child);
    const targetPriority = answerAtOnce(target.child);
    // BENCH_CPU_PROF=DIR: a CPU profile of the daemon, written to DIR when it exits.
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
    const vigil = await startProcess([...profile, ...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', join(root, 'registry.config.yaml'), '--port', '0', '--host', '127.0.0.1']);
    started.push(vigil.child);
    const id = await registerTarget(vigil.url, target.url);

    const ratios: number[] = [];
    let proxyFailures = 0;
    const reasons = new Set<string>();
    const burstOf = async (index: number) => {
      const registrations = await readyToRegister(vigil.url, ports, index * BURST, BURST);
      return () => registrations.go().then(() => followUpDone(fleet, (index + 1) * BURST));
    };
    // Warm-up, not counted: the first quiet round ran on cold code (its p99 3-5 times the later ones').
    await measure(vigil.url, id, () => sleep(QUIET_MS));
    await measure(vigil.url, id, await burstOf(0));
    for (let index = 0; index < ROUNDS; index += 1) {
      const quiet = await measure(vigil.url, id, () => sleep(QUIET_MS));
      const startBurst = await burstOf(index + 1);
      const began = performance.now();
      const burst = await measure(vigil.url, id, startBurst);
      const seconds = (performance.now() - began) / 1000;
      proxyFailures += burst.proxy.failures + quiet.proxy.failures;
      for (const reason of [...burst.proxy.reasons, ...quiet.proxy.reasons]) reasons.add(reason);
      const readRatio = p99(burst.read.latencies) / p99(quiet.read.latencies);
      const proxyRatio = p99(burst.proxy.latencies) / p99(quiet.proxy.latencies);
      ratios.push(Math.max(readRatio, proxyRatio));
      const line = `round ${index + 1}: burst ${round(seconds)} s; GET /instances/{id} p99 ${round(p99(burst.read.latencies))} ms (${burst.read.latencies.length} requests) vs quiet ${round(p99(quiet.read.latencies))} ms (${quiet.read.latencies.length}), ratio ${round(readRatio)}; `
        + `proxied GET p99 ${round(p99(burst.proxy.latencies))} ms (${burst.proxy.latencies.length}, ${burst.proxy.failures} failed) vs quiet ${round(p99(quiet.proxy.latencies))} ms (${quiet.proxy.latencies.length}), ratio ${round(proxyRatio)}`;
      console.log(`  ${line}`);
    }
    const ratio = median(ratios);
    return [
      { ...P99_RATIO, value: ratio, ratio, baseline: `the same requests on the quiet daemon, alternating rounds; ${targetPriority}; per round (worse of the two ratios): ${ratios.map(round).join(', ')}` },
      { ...PROXY_FAILURES, value: proxyFailures, baseline: proxyFailures === 0 ? `no proxied request failed in ${ROUNDS} rounds` : `failures: ${[...reasons].join(', ')}` },
    ];
  } finally {
    await Promise.all(started.map(stopProcess));
  }
}

async function registerTarget(url: string, target: string): Promise<string> {
  const res = await request(`${url}/instances`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'burst-reader', healthUrl: `${target}/actuator/health`, managementUrl: `${target}/actuator` }),
  });
  if (res.statusCode !== 201) throw new Error(`registration failed: ${res.statusCode}`);
  const { id } = (await res.body.json()) as { id: string };
  // A benchmark may poll: until the proxied endpoint answers.
  for (let attempt = 0; attempt < 150; attempt += 1) {
    const probe = await request(`${url}/instances/${id}/actuator/env`);
    await probe.body.dump();
    if (probe.statusCode === 200) return id;
    await sleep(100);
  }
  throw new Error('the proxied endpoint of the reader instance never answered 200');
}
