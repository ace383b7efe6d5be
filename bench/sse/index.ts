import { fork, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { machine, median, notMeasured, residentKb, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { buildFloorServer } from './floor-server.js';
import type { Reply } from './subscribers.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const ROUNDS = 7;
/** Events sent first and not counted: both processes' code paths get warm. */
const WARMUP_ROUNDS = 2;
const SETTLE_MS = 1000;
/**
 * No server on this 2-core machine reaches 10,000 subscribers in 50 ms, not even the C floor
 * (bench/REPORT.md), so the target is relative: Vigil's fan-out time over the floor's, same run.
 */
const FLOOR_RATIO: FigureSpec = { name: 'sse-fanout-floor-ratio', target: 1.15, kind: 'max' };
const RSS_PER_SUBSCRIBER: FigureSpec = { name: 'sse-rss-per-subscriber-kb', target: 20, kind: 'max', unit: 'KB' };
export const figures = [FLOOR_RATIO, RSS_PER_SUBSCRIBER];

const script = (name: string) => join(root, 'dist', 'bench', 'sse', `${name}.js`);
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The subscriber process and a way to ask it things, one question at a time. */
class Subscribers {
  readonly #child: ChildProcess;

  constructor(url: string, path: string) {
    this.#child = fork(script('subscribers'), [url, path, String(SUBSCRIBERS)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }

  ask(message: object): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#child.once('message', (reply: Reply) => ('error' in reply ? reject(new Error(reply.error)) : resolve(reply)));
      this.#child.send(message);
    });
  }

  close(): Promise<void> {
    if (this.#child.exitCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send({ cmd: 'close' });
    return exited;
  }
}

interface FanOut {
  /** Daemon RSS growth per open stream, KiB. */
  readonly perSubscriberKb: number;
  /** Per round: ms from sending the trigger until the last subscriber had the event. */
  readonly lastMs: number[];
  readonly firstMs: number[];
}

/**
 * Opens SUBSCRIBERS streams on `server`, reads its RSS before and after, then runs ROUNDS events,
 * each caused by `triggerBody(round)` POSTed to `triggerPath`.
 */
async function fanOut(server: { child: ChildProcess; url: string }, streamPath: string, triggerPath: string, triggerBody: (index: number) => string): Promise<FanOut> {
  const pid = server.child.pid!;
  const beforeKb = residentKb(pid);
  const subscribers = new Subscribers(server.url, streamPath);
  try {
    const connected = await subscribers.ask({ cmd: 'connect' }) as { connected: number; ms: number };
    await pause(SETTLE_MS);
    const afterKb = residentKb(pid);
    console.log(`  ${connected.connected} subscribers connected in ${Math.round(connected.ms)} ms; RSS ${round(beforeKb / 1024)} MB → ${round(afterKb / 1024)} MB`);
    const lastMs: number[] = [];
    const firstMs: number[] = [];
    for (let index = 0; index < WARMUP_ROUNDS + ROUNDS; index++) {
      const result = await subscribers.ask({ cmd: 'round', path: triggerPath, body: triggerBody(index) }) as { firstMs: number; lastMs: number; status: number };
      if (result.status !== 201) throw new Error(`trigger answered ${result.status}`);
      if (index >= WARMUP_ROUNDS) {
        lastMs.push(result.lastMs);
        firstMs.push(result.firstMs);
      }
      await pause(200);
    }
    return { perSubscriberKb: (afterKb - beforeKb) / connected.connected, lastMs, firstMs };
  } finally {
    await subscribers.close();
  }
}

function report(name: string, result: FanOut): void {
  console.log(`sse: ${name}: last subscriber after ${result.lastMs.map((ms) => round(ms)).join(', ')} ms (median ${round(median(result.lastMs))}, max ${round(Math.max(...result.lastMs))}); ` +
    `first after median ${round(median(result.firstMs))} ms; RSS ${round(result.perSubscriberKb)} KB per subscriber`);
}

/** A registration that is new every round, so each one records exactly one REGISTERED event. */
function registration(index: number): string {
  return JSON.stringify({
    name: 'bench-sse',
    healthUrl: `http://127.0.0.1:9/actuator/health?round=${index}`,
    managementUrl: 'http://127.0.0.1:9/actuator',
    serviceUrl: 'http://127.0.0.1:9/',
    metadata: { 'tags.env': 'bench', startup: '2026-11-22T10:00:00Z' },
  });
}

/**
 * 10,000 subscribers on `/instances/events` of the Vigil daemon: the time one event takes to reach
 * the last of them (from the request that records it; the median over ROUNDS events, each the
 * slowest subscriber of its round), and the daemon's RSS per open stream. The same client process
 * measures, in the same run, a bare node:http SSE server that writes one frame to every response,
 * and the floor: a C epoll server that does one write() per subscriber and nothing else (built
 * with the machine's C compiler). The floor is what this machine's kernel and the client take
 * however fast the server: no Node server can go under it. The figure is Vigil's time over the
 * floor's; the times themselves are printed and written in the baseline column.
 */
export async function run(): Promise<Figure[]> {
  console.log(`sse: ${machine()}; ${SUBSCRIBERS} subscribers in a separate process, ${ROUNDS} events each after ${WARMUP_ROUNDS} warm-up events`);
  const baseline = await startProcess([script('baseline-server')]);
  let baselineResult: FanOut;
  try {
    baselineResult = await fanOut(baseline, '/events', '/trigger', registration);
  } finally {
    await stopProcess(baseline.child);
  }
  report('bare node:http baseline', baselineResult);

  const floorResult = await measureFloor();
  if ('reason' in floorResult) console.log(`  sse: no floor: ${floorResult.reason}`);
  else report('floor (C, one write() per subscriber)', floorResult);

  const config = join(tmpdir(), `vigil-bench-sse-${process.pid}.yaml`);
  // Only what the stream needs: no monitor polling the (unreachable) registered addresses.
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nplugins: [rest-api, sse]\n');
  const profile = process.env.BENCH_CPU_PROF;
  const nodeFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const vigil = await startProcess([...nodeFlags, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
  let vigilResult: FanOut;
  try {
    // One event before measuring, so the code paths the fan-out uses are warm in both servers.
    const warm = await fetch(`${vigil.url}/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: registration(-1) });
    if (warm.status !== 201) throw new Error(`registration failed: ${warm.status}`);
    vigilResult = await fanOut(vigil, '/instances/events', '/instances', registration);
  } finally {
    await stopProcess(vigil.child);
  }
  report('vigil', vigilResult);

  const fanOutMs = median(vigilResult.lastMs);
  const bareMs = median(baselineResult.lastMs);
  const rss: Figure = {
    ...RSS_PER_SUBSCRIBER, value: vigilResult.perSubscriberKb, baseline: `bare node:http ${round(baselineResult.perSubscriberKb)} KB`,
    ratio: vigilResult.perSubscriberKb / baselineResult.perSubscriberKb,
  };
  if ('reason' in floorResult) return [notMeasured(FLOOR_RATIO, `${floorResult.reason}; vigil ${round(fanOutMs)} ms, bare node:http ${round(bareMs)} ms`), rss];
  const floorMs = median(floorResult.lastMs);
  console.log(`sse: vigil ${round(fanOutMs)} ms, floor ${round(floorMs)} ms: ${round(fanOutMs / floorMs)}x the floor`);
  return [{
    ...FLOOR_RATIO, value: fanOutMs / floorMs, ratio: fanOutMs / floorMs,
    baseline: `floor (C, one write() per subscriber) ${round(floorMs)} ms; vigil ${round(fanOutMs)} ms; bare node:http ${round(bareMs)} ms`,
  }, rss];
}

/** The fan-out of the C floor server, or why it could not be built. */
async function measureFloor(): Promise<FanOut | { reason: string }> {
  const built = await buildFloorServer();
  if ('reason' in built) return built;
  const { program } = built;
  try {
    const floor = await startProcess([], {}, program);
    try {
      return await fanOut(floor, '/events', '/trigger', registration);
    } finally {
      await stopProcess(floor.child);
    }
  } finally {
    rmSync(program, { force: true });
  }
}
