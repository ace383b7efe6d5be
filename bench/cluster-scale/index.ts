import { execFileSync, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis } from '../../test/support/redis-server.js';
import { findBinary } from '../../test/support/binaries.js';
import { gapPercentiles, minimumCoverage, type HealthLog } from '../monitoring/coverage.js';
import type { FleetReply, FleetRequest } from '../monitoring/fleet-protocol.js';
import { ask, freePort, registerFleet, startChild, startDaemon, waitForFleet } from '../monitoring/harness.js';
import { ProcessMeter, memoryOf } from '../monitoring/proc-stats.js';
import { machine, notRun, round, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_CLUSTER_SCALE_N ?? 45_000);
const SECONDS = Number(process.env.BENCH_CLUSTER_SCALE_SECONDS ?? 30);
const NODES = 3;
/** The second scenario: 100,000 instances over five nodes, each node holding its share of the histories. */
const LARGE_INSTANCES = Number(process.env.BENCH_CLUSTER_100K_N ?? 100_000);
const LARGE_NODES = 5;
const LARGE_PORTS = Number(process.env.BENCH_CLUSTER_100K_PORTS ?? 20);
/** The status interval of the large scenario: the default unless this machine cannot carry the fake fleet at that rate. */
const LARGE_STATUS_INTERVAL_MS = Number(process.env.BENCH_CLUSTER_100K_STATUS_INTERVAL_MS ?? 10_000);
/** `45k`, `100k` or both (empty): which scenarios run; the other's rows in bench/REPORT.md stay as they were. */
const ONLY = process.env.BENCH_CLUSTER_SCALE_ONLY ?? '';
/**
 * 45,000 instances on one fake-fleet process: 4,500 health calls a second, each node holding at
 * most 8 keep-alive connections per origin. Twelve ports give every node 96 connections to
 * spread its share over, and the fleet 288 sockets at most, far below any fd limit.
 */
const PORTS = Number(process.env.BENCH_CLUSTER_SCALE_PORTS ?? 12);
// The defaults a user runs with (monitor and cluster-redis).
const STATUS_INTERVAL_MS = 10_000;
const HEARTBEAT_INTERVAL_MS = 2000;
const COVERAGE_STEP_MS = 250;
const PLUGINS = 'plugins: [rest-api, sse, proxy, monitor, detect-index, detect-probe]';
/** Extra node flags for the daemons when looking into them (`--trace-gc`): each one's output goes to a file. */
const NODE_OPTIONS = (process.env.BENCH_CLUSTER_SCALE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);

const COVERAGE: FigureSpec = { name: 'cluster-scale-coverage', target: 1, kind: 'min' };
const NODE_RSS: FigureSpec = { name: 'cluster-scale-node-rss-mb', target: 300, kind: 'max', unit: 'MB' };
const LARGE_COVERAGE: FigureSpec = { name: 'cluster-100k-coverage', target: 1, kind: 'min' };
const LARGE_NODE_RSS: FigureSpec = { name: 'cluster-100k-node-rss-mb', target: 250, kind: 'max', unit: 'MB' };
const LARGE_REDIS: FigureSpec = { name: 'cluster-100k-redis-mb', target: 1024, kind: 'max', unit: 'MB' };
export const figures = [COVERAGE, NODE_RSS, LARGE_COVERAGE, LARGE_NODE_RSS, LARGE_REDIS];

const here = join(tmpdir(), `vigil-bench-cluster-scale-${process.pid}`);
const fleetScript = new URL('../monitoring/fake-fleet.js', import.meta.url).pathname;

/**
 * Issue 20, scale out: N instances across three nodes sharing one Redis, at the default
 * intervals, against the same run's one in-memory node monitoring its per-node share (N / 3).
 * Coverage: every instance checked within interval + 1 s in every window of the measured stretch.
 * Node RSS: the whole-life high-water mark (VmHWM) of the largest node.
 */
export async function run(measured: (figures: readonly Figure[]) => void): Promise<Figure[]> {
  const redisServer = findBinary('redis-server', 'apt-get install redis-server').path;
  if (!redisServer) throw new Error('redis-server is not installed (apt-get install redis-server)');
  // Each scenario's figures are handed over as soon as they are measured: the other failing costs only its own.
  const skipped = (specs: readonly FigureSpec[]) => specs.map((spec) => notRun(spec, `not asked for (BENCH_CLUSTER_SCALE_ONLY=${ONLY})`));
  const scale = ONLY === '100k' ? skipped([COVERAGE, NODE_RSS]) : await runScale(redisServer);
  measured(scale);
  const large = ONLY === '45k' ? skipped([LARGE_COVERAGE, LARGE_NODE_RSS, LARGE_REDIS]) : await runLarge(redisServer);
  return [...scale, ...large];
}

async function runScale(redisServer: string): Promise<Figure[]> {
  const share = Math.round(INSTANCES / NODES);
  console.log(`cluster-scale: ${INSTANCES} instances on ${NODES} nodes + Redis vs one in-memory node with ${share}; ${PORTS} fleet ports; open-files limit ${openFilesLimit()}; ${machine()}`);
  const single = await measure([PLUGINS], share, 1, PORTS, STATUS_INTERVAL_MS);
  const cluster = await measure([PLUGINS.replace(']', ', cluster-redis]')], INSTANCES, NODES, PORTS, STATUS_INTERVAL_MS, redisServer);
  const singleText = `one in-memory node with ${share} instances (the per-node share): coverage ${round(single.coverage)}, VmHWM ${mb(single.hwmMb[0]!)} MB, steady peak ${mb(single.steadyMb[0]!)} MB, CPU ${pct(single.cpuShare[0]!)}`;
  const nodesText = cluster.hwmMb.map((hwm, i) => `n${i + 1} VmHWM ${mb(hwm)} MB, steady ${mb(cluster.steadyMb[i]!)} MB, CPU ${pct(cluster.cpuShare[i]!)}`).join('; ');
  const largest = Math.max(...cluster.hwmMb);
  return [
    { ...COVERAGE, value: cluster.coverage, ratio: cluster.coverage / single.coverage, baseline: `${singleText}; cluster gaps p99 ${cluster.gapP99} ms, max ${cluster.gapMax} ms` },
    { ...NODE_RSS, value: largest, ratio: largest / single.hwmMb[0]!, baseline: `${singleText}; ${nodesText}; Redis ${mb(cluster.redisMb)} MB` },
  ];
}

/**
 * Issue 33, a node holds its share: 100,000 instances over five nodes and one Redis. Each node
 * holds every snapshot but the histories of the instances it checks only (and a recent window):
 * the largest node's RSS and Redis's `used_memory` are the figures, with coverage as above.
 */
async function runLarge(redisServer: string): Promise<Figure[]> {
  const interval = LARGE_STATUS_INTERVAL_MS;
  const intervalText = interval === STATUS_INTERVAL_MS ? 'default intervals' : `status-interval ${interval / 1000} s (this machine could not carry the fake fleet at the default rate; see bench/REPORT.md)`;
  console.log(`cluster-100k: ${LARGE_INSTANCES} instances on ${LARGE_NODES} nodes + Redis, ${intervalText}; ${LARGE_PORTS} fleet ports; load average ${loadAverage()}; ${machine()}`);
  const lines = [PLUGINS.replace(']', ', cluster-redis]'), ...(interval === STATUS_INTERVAL_MS ? [] : [`monitor: { status-interval: ${interval}ms }`])];
  const cluster = await measure(lines, LARGE_INSTANCES, LARGE_NODES, LARGE_PORTS, interval, redisServer);
  const nodesText = cluster.hwmMb.map((hwm, i) => `n${i + 1} VmHWM ${mb(hwm)} MB, steady ${mb(cluster.steadyMb[i]!)} MB, CPU ${pct(cluster.cpuShare[i]!)}`).join('; ');
  const context = `${intervalText}; load average at the end ${loadAverage()}`;
  return [
    { ...LARGE_COVERAGE, value: cluster.coverage, baseline: `${context}; gaps p99 ${cluster.gapP99} ms, max ${cluster.gapMax} ms` },
    { ...LARGE_NODE_RSS, value: Math.max(...cluster.hwmMb), baseline: `${context}; ${nodesText}` },
    { ...LARGE_REDIS, value: cluster.redisUsedMb, baseline: `${context}; Redis RSS ${mb(cluster.redisMb)} MB` },
  ];
}

interface Measured {
  readonly coverage: number;
  readonly hwmMb: number[];
  readonly steadyMb: number[];
  readonly cpuShare: number[];
  readonly redisMb: number;
  /** Redis's own `used_memory` (MB). */
  readonly redisUsedMb: number;
  readonly gapP99: number;
  readonly gapMax: number;
}

/** `nodes` daemons (with cluster-redis when `redisServer` is given) monitoring `instances`; the steady window's figures. */
async function measure(lines: readonly string[], instances: number, nodes: number, ports: number, statusIntervalMs: number, redisServer?: string): Promise<Measured> {
  const label = nodes === 1 ? 'single' : `cluster-${nodes}`;
  const coverageWindowMs = statusIntervalMs + 1000;
  const redis = redisServer ? await startRedis(redisServer) : undefined;
  const fleet = await startChild(fleetScript, [String(instances), String(ports)]);
  const daemons: ChildProcess[] = [];
  const files: string[] = [];
  try {
    const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
    const urls: string[] = [];
    for (let n = 1; n <= nodes; n += 1) {
      const file = `${here}-${label}-n${n}.yaml`;
      const cluster = redis ? [`cluster-redis: { url: "${redis.url}", node-id: n${n} }`] : [];
      writeFileSync(file, ['host: 127.0.0.1', 'log-level: warn', ...lines, ...cluster, ''].join('\n'));
      files.push(file);
      const port = await freePort();
      daemons.push(await startDaemon(file, port, NODE_OPTIONS));
      urls.push(`http://127.0.0.1:${port}`);
    }
    if (redis) await sleep(HEARTBEAT_INTERVAL_MS * 2);
    const started = Date.now();
    const retries = await registerFleet(urls, ports, instances);
    const registered = Date.now();
    const rss = () => daemons.map((d) => mb(memoryOf(d.pid!).rssMb)).join(', ');
    // Said before the wait for every info call, so a run that times out there still tells it.
    console.log(`  ${label}: registered ${instances} in ${sec(registered - started)} s (${retries} retried after a 503); RSS ${rss()} MB; load average ${loadAverage()}`);
    await waitForFleet(fleet, instances);
    console.log(`  ${label}: all seen with info after ${sec(Date.now() - started)} s; RSS ${rss()} MB`);
    // The registration-triggered checks were off phase; from two intervals on it is the steady state.
    await sleep(2 * statusIntervalMs);

    await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: true }, 'recording');
    const from = Date.now();
    const meters = daemons.map((daemon) => new ProcessMeter(daemon.pid!));
    const fleetMeter = new ProcessMeter(fleet.pid!);
    // Long enough for several coverage windows whatever the interval: a stretch shorter than one has none to measure.
    await sleep(Math.max(SECONDS * 1000, 3 * coverageWindowMs));
    const usages = meters.map((meter) => meter.stop());
    const fleetUsage = fleetMeter.stop();
    const to = Date.now();
    await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: false }, 'recording');
    const log: HealthLog = await ask<FleetRequest, FleetReply, 'dump'>(fleet, { type: 'dump' }, 'dump');
    const coverage = minimumCoverage(log, instances, from, to, coverageWindowMs, COVERAGE_STEP_MS);
    const gaps = gapPercentiles(log, instances);
    const redisMb = redis ? memoryOf(redis.pid).rssMb : 0;
    const redisUsedMb = redis ? usedMemoryMb(redis.url) : 0;
    console.log(`  ${label}: coverage ${coverage.share} (minimum over ${coverage.windows} windows of ${coverageWindowMs / 1000} s: ${Math.round(instances * (1 - coverage.share))} instances unchecked in the worst), ${log.ids.length} checks in ${sec(to - from)} s; gaps p50 ${gaps.p50} ms, p99 ${gaps.p99} ms, max ${gaps.max} ms; fake fleet CPU ${pct(fleetUsage.cpuShare)}${redis ? `, Redis RSS ${mb(redisMb)} MB, used_memory ${mb(redisUsedMb)} MB` : ''}; load average ${loadAverage()}`);
    usages.forEach((usage, i) => console.log(`  ${label} n${i + 1}: CPU ${pct(usage.cpuShare)}, steady peak RSS ${mb(usage.peakRssMb)} MB, VmHWM ${mb(usage.hwmMb)} MB`));
    return {
      coverage: coverage.share,
      hwmMb: usages.map((usage) => usage.hwmMb),
      steadyMb: usages.map((usage) => usage.peakRssMb),
      cpuShare: usages.map((usage) => usage.cpuShare),
      redisMb,
      redisUsedMb,
      gapP99: gaps.p99,
      gapMax: gaps.max,
    };
  } finally {
    await Promise.all(daemons.map(stopProcess));
    await stopProcess(fleet);
    await redis?.stop();
    for (const file of files) rmSync(file, { force: true });
  }
}

/** Redis's `used_memory` in MB, asked with `redis-cli` (installed with redis-server). */
function usedMemoryMb(url: string): number {
  const info = execFileSync('redis-cli', ['-u', url, 'INFO', 'memory'], { encoding: 'utf8' });
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN) / 1e6;
}

function loadAverage(): string {
  return loadavg().map((value) => value.toFixed(2)).join(' ');
}

/** The soft limit on open files this run inherits (`ulimit -n`), for the record. */
function openFilesLimit(): string {
  try {
    return execFileSync('sh', ['-c', 'ulimit -n'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

function mb(value: number): number {
  return Math.round(value);
}

function pct(share: number): string {
  return `${round(share * 100)}%`;
}

function sec(ms: number): number {
  return round(ms / 1000);
}
