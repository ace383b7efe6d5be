import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { machine, round, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { gapPercentiles, minimumCoverage, perInterval, type HealthLog } from './coverage.js';
import type { FleetReply, FleetRequest, PollerReply, PollerRequest } from './fleet-protocol.js';
import { ask, countUp, freePort, registerFleet, startChild, startDaemon, waitForFleet } from './harness.js';
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
/** Extra node flags for the daemon when looking into it (`--cpu-prof --cpu-prof-dir=/tmp/prof`, `--trace-gc`). */
const DAEMON_NODE_OPTIONS = (process.env.BENCH_MONITORING_NODE_OPTIONS ?? '').split(' ').filter(Boolean);

const COVERAGE: FigureSpec = { name: 'monitoring-coverage', target: 1, kind: 'min' };
const CPU: FigureSpec = { name: 'monitoring-cpu', target: 0.25, kind: 'max', unit: 'share of one core' };
/** The whole-life high-water mark (VmHWM): registering the fleet, detection and the steady state. */
const RSS: FigureSpec = { name: 'monitoring-rss', target: 300, kind: 'max', unit: 'MB' };
/** The steady state: the largest RSS sampled (every 250 ms) in the measured window, once the fleet is registered and settled. */
const RSS_STEADY: FigureSpec = { name: 'monitoring-rss-steady', target: 200, kind: 'max', unit: 'MB' };
export const figures = [COVERAGE, CPU, RSS, RSS_STEADY];

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
      { ...RSS_STEADY, value: daemon.peakRssMb, baseline: `${baselineText}; daemon whole-life high-water mark ${Math.round(daemon.hwmMb)} MB`, ratio: daemon.peakRssMb / baseline.peakRssMb },
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
  const daemon = await startDaemon(config, port, DAEMON_NODE_OPTIONS);
  const url = `http://127.0.0.1:${port}`;
  try {
    const started = Date.now();
    const registering = new ProcessMeter(daemon.pid!);
    await registerFleet(url, ports, INSTANCES);
    const registered = Date.now();
    await waitForFleet(fleet, INSTANCES);
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

function pct(share: number): string {
  return `${round(share * 100)}%`;
}

function sec(ms: number): number {
  return round(ms / 1000);
}
