import autocannon, { type Request as LoadRequest } from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis, type RedisProcess } from '../../test/support/redis-server.js';
import { findBinary } from '../../test/support/binaries.js';
import { ask, freePort, registerFleet, startChild, startDaemon, waitForFleet } from '../monitoring/harness.js';
import type { FleetReply, FleetRequest } from '../monitoring/fleet-protocol.js';
import { ProcessMeter } from '../monitoring/proc-stats.js';
import { machine, median, round, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { firstRegistrations } from './load.js';

const INSTANCES = Number(process.env.BENCH_CLUSTER_N ?? 15_000);
const SECONDS = Number(process.env.BENCH_CLUSTER_SECONDS ?? 30);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const ROUND_S = Number(process.env.BENCH_DURATION ?? 3);
const PORTS = 4;
const NODES = 3;
// The defaults a user runs with (monitor and cluster-redis).
const STATUS_INTERVAL_MS = 10_000;
const HEARTBEAT_INTERVAL_MS = 2000;
const HEARTBEAT_TTL_MS = 6000;
const FAILOVER_TARGET_S = (HEARTBEAT_TTL_MS + HEARTBEAT_INTERVAL_MS + STATUS_INTERVAL_MS) / 1000 + 2;
const PLUGINS = 'plugins: [rest-api, sse, proxy, monitor, detect-index, detect-probe]';

const OVERHEAD: FigureSpec = { name: 'cluster-check-overhead', target: 1.3, kind: 'max' };
const DUPLICATES: FigureSpec = { name: 'cluster-duplicate-checks', target: 0.01, kind: 'max' };
const FAILOVER: FigureSpec = { name: 'cluster-failover-s', target: FAILOVER_TARGET_S, kind: 'max', unit: 's' };
const REGISTRATION: FigureSpec = { name: 'cluster-registration-ratio', target: 0.5, kind: 'min' };
const HEARTBEAT: FigureSpec = { name: 'cluster-heartbeat-ratio', target: 0.9, kind: 'min' };
export const figures = [OVERHEAD, DUPLICATES, FAILOVER, REGISTRATION, HEARTBEAT];

const here = join(tmpdir(), `vigil-bench-cluster-${process.pid}`);
const fleetScript = new URL('../monitoring/fake-fleet.js', import.meta.url).pathname;

/**
 * Issue 15's figures: three nodes and one Redis on this machine against one in-memory node,
 * the same fleet and load generators in the same run.
 */
export async function run(): Promise<Figure[]> {
  const redisServer = findBinary('redis-server', 'apt-get install redis-server').path;
  if (!redisServer) throw new Error('redis-server is not installed (apt-get install redis-server)');
  console.log(`cluster: ${NODES} nodes + Redis vs one in-memory node; ${INSTANCES} instances, default intervals, ${SECONDS} s windows; ${machine()}`);
  const single = await singleNodeCpu();
  const cluster = await clusterRun(redisServer);
  const throughput = await registrationRatios(redisServer);
  const overhead = cluster.cpuShare / single;
  return [
    { ...OVERHEAD, value: overhead, ratio: overhead, baseline: `one in-memory node: CPU ${pct(single)} of a core; ${NODES} nodes together ${pct(cluster.cpuShare)} (Redis itself ${pct(cluster.redisShare)}, not counted)` },
    { ...DUPLICATES, value: cluster.duplicates, baseline: `${cluster.checks} checks of ${INSTANCES} instances in ${SECONDS} s, ${cluster.extra} beyond one per instance per interval` },
    { ...FAILOVER, value: cluster.failoverS, baseline: `kill -9 of one node owning ${cluster.orphans} instances; heartbeat-ttl ${HEARTBEAT_TTL_MS / 1000} s + interval ${HEARTBEAT_INTERVAL_MS / 1000} s + status-interval ${STATUS_INTERVAL_MS / 1000} s + 2 s` },
    { ...REGISTRATION, value: throughput.first, ratio: throughput.first, baseline: throughput.firstText },
    { ...HEARTBEAT, value: throughput.heartbeat, ratio: throughput.heartbeat, baseline: throughput.heartbeatText },
  ];
}

function config(name: string, lines: readonly string[]): string {
  const file = `${here}-${name}.yaml`;
  writeFileSync(file, ['host: 127.0.0.1', 'log-level: warn', ...lines, ''].join('\n'));
  return file;
}

async function startFleet(): Promise<{ fleet: ChildProcess; ports: number[] }> {
  const fleet = await startChild(fleetScript, [String(INSTANCES), String(PORTS)]);
  const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
  return { fleet, ports };
}

/** The baseline: one node, in memory, monitoring the fleet; its CPU share in the steady state. */
async function singleNodeCpu(): Promise<number> {
  const { fleet, ports } = await startFleet();
  const file = config('single', [PLUGINS]);
  const port = await freePort();
  const daemon = await startDaemon(file, port);
  try {
    await registerFleet(`http://127.0.0.1:${port}`, ports, INSTANCES);
    await waitForFleet(fleet, INSTANCES);
    await sleep(2 * STATUS_INTERVAL_MS);
    const meter = new ProcessMeter(daemon.pid!);
    await sleep(SECONDS * 1000);
    const { cpuShare } = meter.stop();
    console.log(`  one in-memory node: CPU ${pct(cpuShare)} of a core`);
    return cpuShare;
  } finally {
    await stopProcess(daemon);
    await stopProcess(fleet);
    rmSync(file, { force: true });
  }
}

interface ClusterResult {
  readonly cpuShare: number;
  readonly redisShare: number;
  readonly checks: number;
  readonly extra: number;
  readonly duplicates: number;
  readonly failoverS: number;
  readonly orphans: number;
}

async function clusterRun(redisServer: string): Promise<ClusterResult> {
  const redis = await startRedis(redisServer);
  const { fleet, ports } = await startFleet();
  const daemons: ChildProcess[] = [];
  const files: string[] = [];
  try {
    const urls: string[] = [];
    for (let n = 1; n <= NODES; n += 1) {
      const file = config(`n${n}`, [PLUGINS.replace(']', ', cluster-redis]'), `cluster-redis: { url: "${redis.url}", node-id: n${n} }`]);
      files.push(file);
      const port = await freePort();
      daemons.push(await startDaemon(file, port));
      urls.push(`http://127.0.0.1:${port}`);
    }
    await sleep(HEARTBEAT_INTERVAL_MS * 2);
    await registerFleet(urls, ports, INSTANCES);
    await waitForFleet(fleet, INSTANCES);
    await sleep(2 * STATUS_INTERVAL_MS);

    await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: true }, 'recording');
    const from = Date.now();
    const meters = daemons.map((daemon) => new ProcessMeter(daemon.pid!));
    const redisMeter = new ProcessMeter(redis.pid);
    await sleep(SECONDS * 1000);
    const cpuShare = meters.reduce((sum, meter) => sum + meter.stop().cpuShare, 0);
    const redisShare = redisMeter.stop().cpuShare;
    const to = Date.now();
    const steady = await ask<FleetRequest, FleetReply, 'dump'>(fleet, { type: 'dump' }, 'dump');
    const { checks, extra } = duplicateChecks(steady, from, to);
    console.log(`  ${NODES} nodes: CPU ${pct(cpuShare)} of a core together (Redis ${pct(redisShare)}); ${checks} checks, ${extra} beyond one per instance per interval`);

    // Failover: kill -9 of the third node while the fleet records who checks what.
    await ask<FleetRequest, FleetReply, 'recording'>(fleet, { type: 'record', on: true }, 'recording');
    await sleep(STATUS_INTERVAL_MS + 1000);
    const killedAt = Date.now();
    daemons[2]!.kill('SIGKILL');
    await sleep((FAILOVER_TARGET_S + 5) * 1000);
    const log = await ask<FleetRequest, FleetReply, 'dump'>(fleet, { type: 'dump' }, 'dump');
    const failover = longestGap(log, killedAt, 'n3');
    console.log(`  kill -9 of n3 (${failover.orphans} instances): the longest one went unchecked was ${round(failover.seconds)} s`);
    return { cpuShare, redisShare, checks, extra, duplicates: extra / Math.max(1, checks), failoverS: failover.seconds, orphans: failover.orphans };
  } finally {
    await Promise.all(daemons.map(stopProcess));
    await stopProcess(fleet);
    await redis.stop();
    for (const file of files) rmSync(file, { force: true });
  }
}

/** Checks beyond one per instance per status interval, counted over whole intervals of the window. */
function duplicateChecks(log: { ids: readonly number[]; at: readonly number[] }, from: number, to: number): { checks: number; extra: number } {
  const buckets = Math.floor((to - from) / STATUS_INTERVAL_MS);
  const counts = new Map<number, number>();
  let checks = 0;
  for (let i = 0; i < log.ids.length; i += 1) {
    const bucket = Math.floor((log.at[i]! - from) / STATUS_INTERVAL_MS);
    if (bucket < 0 || bucket >= buckets) continue;
    checks += 1;
    const key = log.ids[i]! * 1000 + bucket;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  let extra = 0;
  for (const count of counts.values()) extra += Math.max(0, count - 1);
  return { checks, extra };
}

/** For the instances `node` checked before `killedAt`: the longest time from its last check until a survivor's first. */
function longestGap(log: { ids: readonly number[]; at: readonly number[]; by: readonly number[]; nodeNames: readonly string[] }, killedAt: number, node: string): { seconds: number; orphans: number } {
  const dead = log.nodeNames.indexOf(node);
  const lastByDead = new Map<number, number>();
  const firstAfter = new Map<number, number>();
  for (let i = 0; i < log.ids.length; i += 1) {
    const [id, at, by] = [log.ids[i]!, log.at[i]!, log.by[i]!];
    if (by === dead && at <= killedAt) lastByDead.set(id, Math.max(lastByDead.get(id) ?? 0, at));
    else if (by !== dead && at > killedAt && !firstAfter.has(id)) firstAfter.set(id, at);
  }
  const end = Math.max(...log.at);
  let worst = 0;
  for (const [id, last] of lastByDead) worst = Math.max(worst, (firstAfter.get(id) ?? end) - last);
  return { seconds: worst / 1000, orphans: lastByDead.size };
}

/** First and heartbeat registrations through cluster-redis against the in-memory daemon, interleaved rounds. */
async function registrationRatios(redisServer: string): Promise<{ first: number; heartbeat: number; firstText: string; heartbeatText: string }> {
  const redis: RedisProcess = await startRedis(redisServer);
  const files = [config('reg-memory', ['plugins: [rest-api]']), config('reg-cluster', ['plugins: [rest-api, cluster-redis]', `cluster-redis: { url: "${redis.url}", node-id: r1 }`])];
  const children: ChildProcess[] = [];
  try {
    const urls: string[] = [];
    for (const file of files) {
      const port = await freePort();
      children.push(await startDaemon(file, port));
      urls.push(`http://127.0.0.1:${port}`);
    }
    const firstRatios: number[] = [];
    const firstRuns: [number[], number[]] = [[], []];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) firstRuns[which]!.push(await firstRegistrations(urls[which]!, ROUND_S, 64, `r${round}`));
      firstRatios.push(firstRuns[1][round]! / firstRuns[0][round]!);
    }
    const heartbeats = heartbeatRequests();
    for (const url of urls) for (const request of heartbeats) await fetch(`${url}/instances`, { method: 'POST', headers: request.headers!, body: request.body! });
    const beatRatios: number[] = [];
    const beatRuns: [number[], number[]] = [[], []];
    for (let round = 0; round < ROUNDS; round += 1) {
      const order = round % 2 === 0 ? [0, 1] : [1, 0];
      for (const which of order) {
        const result = await autocannon({ url: urls[which]!, connections: 100, duration: ROUND_S, requests: heartbeats });
        if (result.non2xx > 0 || result.errors > 0) throw new Error(`heartbeats failed: ${result.non2xx} non-2xx, ${result.errors} errors`);
        beatRuns[which]!.push(result.requests.average);
      }
      beatRatios.push(beatRuns[1][round]! / beatRuns[0][round]!);
    }
    const first = median(firstRatios);
    const heartbeat = median(beatRatios);
    console.log(`  first registrations: cluster ${Math.round(median(firstRuns[1]))}/s vs in-memory ${Math.round(median(firstRuns[0]))}/s, ratio ${round(first)}`);
    console.log(`  heartbeats: cluster ${Math.round(median(beatRuns[1]))}/s vs in-memory ${Math.round(median(beatRuns[0]))}/s, ratio ${round(heartbeat)}`);
    return {
      first,
      heartbeat,
      firstText: `in-memory ${Math.round(median(firstRuns[0]))}/s, cluster-redis ${Math.round(median(firstRuns[1]))}/s (medians of ${ROUNDS} interleaved rounds of ${ROUND_S} s, 64 clients; per-round ratios ${round(Math.min(...firstRatios))}–${round(Math.max(...firstRatios))})`,
      heartbeatText: `in-memory ${Math.round(median(beatRuns[0]))}/s, cluster-redis ${Math.round(median(beatRuns[1]))}/s (medians of ${ROUNDS} interleaved rounds, 100 connections; per-round ${round(Math.min(...beatRatios))}–${round(Math.max(...beatRatios))})`,
    };
  } finally {
    await Promise.all(children.map(stopProcess));
    await redis.stop();
    for (const file of files) rmSync(file, { force: true });
  }
}

function heartbeatRequests(): LoadRequest[] {
  return Array.from({ length: 1000 }, (_, i) => ({
    method: 'POST',
    path: '/instances',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: `beat-${i % 50}`, healthUrl: `http://10.9.${Math.floor(i / 250)}.${i % 250}:8080/actuator/health`, metadata: { 'tags.env': 'bench' } }),
  }));
}

function pct(share: number): string {
  return `${round(share * 100)}%`;
}
