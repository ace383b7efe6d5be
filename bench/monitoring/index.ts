import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { machine, root, round, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { gapPercentiles, minimumCoverage, perInterval, type HealthLog } from './coverage.js';
import type { FleetReply, FleetRequest, PollerReply, PollerRequest } from './fleet-protocol.js';
import { ProcessMeter } from './proc-stats.js';

const here = dirname(fileURLToPath(import.meta.url));
const INSTANCES = Number(process.env.BENCH_MONITORING_N ?? 20_000);
const SECONDS = Number(process.env.BENCH_MONITORING_SECONDS ?? 30);
/**
 * The monitor opens at most `max-connections-per-origin` (8) connections per origin. Steady state
 * is N / status-interval = 2,000 checks a second, answered in well under a millisecond on
 * loopback: about one call in flight on average, so 4 origins × 8 = 32 keep-alive connections
 * carry it (and the burst of ~4 calls per registration) with a wide margin, while the fleet stays
 * one cheap process. More ports change little but socket count; one port would make 8
 * connections the only road for all 20,000 instances.
 */
const PORTS = Number(process.env.BENCH_MONITORING_PORTS ?? 4);
// The monitor's defaults (CONTRACT §2), which the daemon runs with.
const STATUS_INTERVAL_MS = 10_000;
const STATUS_LIFETIME_MS = 10_000;
const COVERAGE_WINDOW_MS = STATUS_INTERVAL_MS + 1000;
const COVERAGE_STEP_MS = 250;
const REGISTRATION_CONCURRENCY = 32;
const APPLICATIONS = 100;
/** Extra node flags for the daemon when looking into it (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc`). */
const DAEMON_NODE_OPTIONS = (process.env.BENCH_MONITORING_NODE_OPTIONS ?? '').split(' ').filter(Boolean);

const COVERAGE: FigureSpec = { name: 'monitoring-coverage', target: 1, kind: 'min' };
const CPU: FigureSpec = { name: 'monitoring-cpu', target: 0.5, kind: 'max', unit: 'share of one core' };
const RSS: FigureSpec = { name: 'monitoring-rss', target: 400, kind: 'max', unit: 'MB' };
export const figures = [COVERAGE, CPU, RSS];

/**
 * Monitoring at scale (issue 3): a fake fleet of N instances in a separate process, the daemon
 * monitoring them with the default plugins and intervals, and, in the same run, a bare undici
 * poller doing only the HTTP part of the same work as the floor of what polling costs here.
 */
export async function run(): Promise<Figure[]> {
  console.log(`monitoring: ${INSTANCES} instances on ${PORTS} ports, status-interval ${STATUS_INTERVAL_MS / 1000} s, window ${SECONDS} s; ${machine()}`);
  const fleet = await startChild(join(here, 'fake-fleet.js'), [String(INSTANCES), String(PORTS)]);
  try {
    const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
    const daemon = await measureDaemon(fleet, ports);
    const baseline = await measureBaseline(fleet, ports);

    const cpuRatio = daemon.cpuShare / baseline.cpuShare;
    console.log(`  baseline: ${baseline.polls} polls in all (${baseline.failures} failed); daemon/baseline CPU ${round(cpuRatio)}x`);
    const baselineText = `bare undici poller: CPU ${pct(baseline.cpuShare)} of one core, peak RSS ${Math.round(baseline.hwmMb)} MB, coverage ${round(baseline.coverage)}`;
    return [
      { ...COVERAGE, value: daemon.coverage, baseline: baselineText, ratio: daemon.coverage / baseline.coverage },
      { ...CPU, value: daemon.cpuShare, baseline: `${baselineText}; daemon ${round(cpuRatio)}x the poller`, ratio: cpuRatio },
      // The high-water mark over the daemon's whole life, registering the fleet included, not only the steady state.
      { ...RSS, value: daemon.hwmMb, baseline: `${baselineText}; daemon peak RSS in the measured window ${Math.round(daemon.peakRssMb)} MB`, ratio: daemon.hwmMb / baseline.hwmMb },
    ];
  } finally {
    await stopProcess(fleet);
  }
}

interface Measured {
  readonly coverage: number;
  readonly cpuShare: number;
  readonly peakRssMb: number;
  readonly hwmMb: number;
}

async function measureDaemon(fleet: ChildProcess, ports: number[]): Promise<Measured> {
  const config = join(tmpdir(), `vigil-bench-monitoring-${process.pid}.yaml`);
  // The default plugin list and the monitor's default intervals; only the log level is lowered.
  writeFileSync(config, [
    'host: 127.0.0.1',
    'log-level: warn',
    'plugins: [rest-api, sse, proxy, monitor, detect-index, detect-probe]',
    '',
  ].join('\n'));
  const port = await freePort();
  const daemon = await startDaemon(config, port);
  const url = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    const registering = new ProcessMeter(daemon.pid!);
    await registerFleet(url, ports);
    const registered = Date.now();
    await waitForFleet(fleet);
    const load = registering.stop();
    const ready = Date.now();
    const up = await countUp(url);
    if (up !== INSTANCES) throw new Error(`only ${up} of ${INSTANCES} instances are UP`);
    console.log(`  registered ${INSTANCES} in ${sec(registered - started)} s; all UP with endpoints and info after ${sec(ready - started)} s (daemon CPU ${pct(load.cpuShare)} meanwhile)`);

    // Each registration-triggered check was off the instance's phase; the first periodic one
    // follows within lifetime + interval. From then on the steady state is what is measured.
    await sleep(STATUS_INTERVAL_MS + STATUS_LIFETIME_MS);
    const window = await measureWindow(fleet, daemon, 'daemon');
    return window;
  } finally {
    await stopProcess(daemon);
    rmSync(config, { force: true });
  }
}

async function measureBaseline(fleet: ChildProcess, ports: number[]): Promise<Measured & { polls: number; failures: number }> {
  const poller = await startChild(join(here, 'baseline-poller.js'), [String(INSTANCES), ports.join(','), String(STATUS_INTERVAL_MS)]);
  try {
    await ask<PollerRequest, PollerReply, 'ready'>(poller, undefined, 'ready');
    poller.send({ type: 'start' } satisfies PollerRequest);
    // Its first round opens the connections; measure once a full round has gone by.
    await sleep(STATUS_INTERVAL_MS);
    const window = await measureWindow(fleet, poller, 'baseline');
    const stats = await ask<PollerRequest, PollerReply, 'stats'>(poller, { type: 'stats' }, 'stats');
    return { ...window, polls: stats.polls, failures: stats.failures };
  } finally {
    await stopProcess(poller);
  }
}

/** Records the fleet's health requests and meters `subject` for SECONDS; prints the figures. */
async function measureWindow(fleet: ChildProcess, subject: ChildProcess, label: string): Promise<Measured> {
  await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: true }, 'recording');
  const from = Date.now();
  const meter = new ProcessMeter(subject.pid!);
  const fleetMeter = new ProcessMeter(fleet.pid!);
  await sleep(SECONDS * 1000);
  const usage = meter.stop();
  const fleetUsage = fleetMeter.stop();
  const to = Date.now();
  await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: false }, 'recording');
  const log: HealthLog = await ask<FleetRequest, FleetReply, 'dump'>(fleet, { type: 'dump' }, 'dump');

  if (label === 'daemon') {
    perInterval(log, INSTANCES, from, to, STATUS_INTERVAL_MS).forEach((row, i) => {
      console.log(`  interval ${i + 1}: ${row.requests} health checks, ${row.distinct} of ${INSTANCES} instances checked`);
    });
  }
  const gaps = gapPercentiles(log, INSTANCES);
  console.log(`  ${label}: time between two checks of one instance (ms): min ${gaps.min}, p1 ${gaps.p1}, p50 ${gaps.p50}, p99 ${gaps.p99}, max ${gaps.max} (${gaps.count} gaps)`);
  const coverage = minimumCoverage(log, INSTANCES, from, to, COVERAGE_WINDOW_MS, COVERAGE_STEP_MS);
  console.log(`  ${label}: coverage ${round(coverage.share)} (minimum over ${coverage.windows} windows of ${COVERAGE_WINDOW_MS / 1000} s; worst at +${sec(coverage.worstStart - from)} s), `
    + `CPU ${pct(usage.cpuShare)} of one core over ${round(usage.seconds)} s, peak RSS ${round(usage.peakRssMb)} MB (VmHWM ${round(usage.hwmMb)} MB); fake fleet CPU ${pct(fleetUsage.cpuShare)}`);
  return { coverage: coverage.share, cpuShare: usage.cpuShare, peakRssMb: usage.peakRssMb, hwmMb: usage.hwmMb };
}

/** POST /instances for the whole fleet, a bounded number at a time. */
async function registerFleet(url: string, ports: number[]): Promise<void> {
  const agent = new Agent({ connections: REGISTRATION_CONCURRENCY });
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < INSTANCES; n = next++) {
      const base = `http://127.0.0.1:${ports[n % ports.length]}/i/${n}`;
      const body = JSON.stringify({
        name: `fleet-${n % APPLICATIONS}`,
        healthUrl: `${base}/actuator/health`,
        managementUrl: `${base}/actuator`,
        serviceUrl: `${base}/`,
        metadata: { 'tags.fleet': 'bench', startup: '2026-01-01T00:00:00Z' },
      });
      const res = await request(`${url}/instances`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`registration ${n} failed: ${res.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: REGISTRATION_CONCURRENCY }, worker));
  } finally {
    await agent.close();
  }
}

/** Until every instance's info was requested: it was UP, its endpoints were detected, its info read. */
async function waitForFleet(fleet: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { infoSeen } = await ask<FleetRequest, FleetReply, 'progress'>(fleet, { type: 'progress' }, 'progress');
    if (infoSeen >= INSTANCES) return;
    if (Date.now() > deadline) throw new Error(`only ${infoSeen} of ${INSTANCES} instances reached their info endpoint in 10 min`);
    await sleep(500);
  }
}

/** Black-box check through the REST API: how many registered instances are UP. */
async function countUp(url: string): Promise<number> {
  const res = await request(`${url}/applications`, { headers: { accept: 'application/json' } });
  const applications = (await res.body.json()) as { instances: { statusInfo: { status: string } }[] }[];
  return applications.reduce((sum, app) => sum + app.instances.filter((i) => i.statusInfo.status === 'UP').length, 0);
}

/** The daemon, on a port chosen here (at log-level warn it logs no "listening" line), once it answers. */
async function startDaemon(config: string, port: number): Promise<ChildProcess> {
  const args = [...DAEMON_NODE_OPTIONS, join(root, 'bin', 'vigil.js'), '--config', config, '--port', String(port)];
  const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  // With diagnostic flags the output may be large (--trace-gc): it goes to a file instead.
  const logFile = DAEMON_NODE_OPTIONS.length > 0 ? join(tmpdir(), `vigil-bench-monitoring-${process.pid}.log`) : undefined;
  if (logFile) console.log(`  daemon: node ${DAEMON_NODE_OPTIONS.join(' ')}; output in ${logFile}`);
  let output = '';
  const keep = (chunk: Buffer) => {
    if (logFile) appendFileSync(logFile, chunk);
    else if (output.length < 1_000_000) output += chunk.toString('utf8');
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}):\n${output}`);
    try {
      const res = await request(`http://127.0.0.1:${port}/applications`);
      await res.body.dump();
      if (res.statusCode === 200) return child;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stopProcess(child);
      throw new Error(`the daemon did not answer within 20 s:\n${output}`);
    }
    await sleep(100);
  }
}

function startChild(script: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/** Sends `message` (if any) and resolves with the next reply of type `type`. */
function ask<Req, Reply extends { type: string }, T extends Reply['type']>(child: ChildProcess, message: Req | undefined, type: T): Promise<Extract<Reply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: Reply) => {
      if (reply.type !== type) return;
      cleanup();
      resolve(reply as Extract<Reply, { type: T }>);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child process exited (${code}) while waiting for "${type}"`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (message !== undefined) child.send(message as object);
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

function pct(share: number): string {
  return `${round(share * 100)}%`;
}

function sec(ms: number): number {
  return round(ms / 1000);
}
