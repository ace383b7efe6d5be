import { fork, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS, machine, median, notMeasured, residentKb, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { buildFloorServer } from './floor-server.js';
import type { Reply } from './subscribers.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
/** Events per server, taking turns; the figure is the median of the per-round ratios. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
/** Events sent first and not counted: the code paths of server and client get warm. */
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

/** One server with SUBSCRIBERS open streams, and what its events took to reach them. */
interface Audience {
  readonly name: string;
  readonly subscribers: Subscribers;
  readonly triggerPath: string;
  /** Server RSS growth per open stream, KiB. */
  readonly perSubscriberKb: number;
  /** Per measured event: ms from sending the trigger until the last subscriber had the event. */
  readonly lastMs: number[];
  readonly firstMs: number[];
  events: number;
}

interface Server {
  readonly child: ChildProcess;
  readonly url: string;
}

/** Opens SUBSCRIBERS streams on `server` (its RSS read before and after), then sends the warm-up events. */
async function open(name: string, server: Server, streamPath: string, triggerPath: string): Promise<Audience> {
  const pid = server.child.pid!;
  const beforeKb = residentKb(pid);
  const subscribers = new Subscribers(server.url, streamPath);
  try {
    const connected = await subscribers.ask({ cmd: 'connect' }) as { connected: number; ms: number };
    await pause(SETTLE_MS);
    const afterKb = residentKb(pid);
    console.log(`  ${name}: ${connected.connected} subscribers connected in ${Math.round(connected.ms)} ms; RSS ${round(beforeKb / 1024)} MB → ${round(afterKb / 1024)} MB`);
    const audience: Audience = { name, subscribers, triggerPath, perSubscriberKb: (afterKb - beforeKb) / connected.connected, lastMs: [], firstMs: [], events: 0 };
    for (let index = 0; index < WARMUP_ROUNDS; index++) await event(audience, false);
    return audience;
  } catch (error) {
    await subscribers.close();
    throw error;
  }
}

/** One event, caused by a new registration POSTed to the trigger path, timed by the subscriber process. */
async function event(audience: Audience, measured: boolean): Promise<number> {
  const result = await audience.subscribers.ask({ cmd: 'round', path: audience.triggerPath, body: registration(audience.events++) }) as { firstMs: number; lastMs: number; status: number };
  if (result.status !== 201) throw new Error(`${audience.name}: trigger answered ${result.status}`);
  if (measured) {
    audience.lastMs.push(result.lastMs);
    audience.firstMs.push(result.firstMs);
  }
  await pause(200);
  return result.lastMs;
}

function report(audience: Audience): void {
  console.log(`sse: ${audience.name}: last subscriber after ${audience.lastMs.map((ms) => round(ms)).join(', ')} ms (median ${round(median(audience.lastMs))}, ` +
    `max ${round(Math.max(...audience.lastMs))}); first after median ${round(median(audience.firstMs))} ms; RSS ${round(audience.perSubscriberKb)} KB per subscriber`);
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
 * the last of them (from the request that records it, each event timed at its slowest
 * subscriber), and the daemon's RSS per open stream. Against the floor: a C epoll server that
 * does one write() per subscriber and nothing else (built with the machine's C compiler), what
 * this machine's kernel and client take however fast the server. Beside them, a bare node:http
 * server that writes one pre-framed chunk to every stream's socket as Vigil does: what Node's
 * socket layer takes over the floor, so a run shows which part of Vigil's time is Vigil's. The
 * servers hold their subscribers (one client process each) and take turns, one event each per
 * round, the order turned every round; the figure is the median of the per-round ratios,
 * Vigil's time over the floor's. The other ratios are printed and written in the baseline column.
 */
export async function run(): Promise<Figure[]> {
  console.log(`sse: ${machine()}; ${SUBSCRIBERS} subscribers per server, each in a separate process; ${ROUNDS} events each after ${WARMUP_ROUNDS} warm-up events`);
  const built = await buildFloorServer();
  if ('reason' in built) console.log(`  sse: no floor: ${built.reason}`);
  const config = join(tmpdir(), `vigil-bench-sse-${process.pid}.yaml`);
  // Only what the stream needs: no monitor polling the (unreachable) registered addresses.
  // Room for every subscriber and the requests that trigger the events: the default (10,000) would refuse the last ones.
  writeFileSync(config, `host: 127.0.0.1\nport: 0\nplugins: [rest-api, sse]\nserver:\n  max-connections: ${SUBSCRIBERS + 1000}\n`);
  const profile = process.env.BENCH_CPU_PROF;
  const nodeFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const servers: ChildProcess[] = [];
  const audiences: Audience[] = [];
  try {
    const floor = 'program' in built ? await startProcess([], {}, built.program) : undefined;
    if (floor) servers.push(floor.child);
    const bare = await startProcess([script('baseline-server')]);
    servers.push(bare.child);
    const vigil = await startProcess([...nodeFlags, ...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
    servers.push(vigil.child);
    // One event before the streams open, so the code paths the fan-out uses are warm.
    const warm = await fetch(`${vigil.url}/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: registration(-1) });
    if (warm.status !== 201) throw new Error(`registration failed: ${warm.status}`);
    const floorAudience = floor && await open('floor (C, one write() per subscriber)', floor, '/events', '/trigger');
    if (floorAudience) audiences.push(floorAudience);
    const bareAudience = await open('bare node:http (one socket write per subscriber)', bare, '/events', '/trigger');
    audiences.push(bareAudience);
    const vigilAudience = await open('vigil', vigil, '/instances/events', '/instances');
    audiences.push(vigilAudience);
    const ratios: number[] = [];
    const bareRatios: number[] = [];
    const overBare: number[] = [];
    for (let index = 0; index < ROUNDS; index++) {
      const order = audiences.map((_, at) => audiences[(at + index) % audiences.length]!);
      const times = new Map<Audience, number>();
      for (const audience of order) times.set(audience, await event(audience, true));
      overBare.push(times.get(vigilAudience)! / times.get(bareAudience)!);
      if (floorAudience) {
        ratios.push(times.get(vigilAudience)! / times.get(floorAudience)!);
        bareRatios.push(times.get(bareAudience)! / times.get(floorAudience)!);
      }
    }
    for (const audience of audiences) report(audience);

    const vigilMs = median(vigilAudience.lastMs);
    const bareMs = median(bareAudience.lastMs);
    const rss: Figure = {
      ...RSS_PER_SUBSCRIBER, value: vigilAudience.perSubscriberKb, baseline: `bare node:http ${round(bareAudience.perSubscriberKb)} KB`,
      ratio: vigilAudience.perSubscriberKb / bareAudience.perSubscriberKb,
    };
    const nodeShare = `bare node:http ${round(bareMs)} ms; vigil over bare node:http ${round(median(overBare))} (median of per-round ratios)`;
    if (!floorAudience) return [notMeasured(FLOOR_RATIO, `${(built as { reason: string }).reason}; vigil ${round(vigilMs)} ms, ${nodeShare}`), rss];
    const floorMs = median(floorAudience.lastMs);
    const ratio = median(ratios);
    console.log(`sse: vigil ${round(vigilMs)} ms, bare node:http ${round(bareMs)} ms, floor ${round(floorMs)} ms (medians); ` +
      `per-round ratios over the floor ${ratios.map(round).join(', ')}: median ${round(ratio)}; bare node:http over the floor: median ${round(median(bareRatios))}; ` +
      `vigil over bare node:http: median ${round(median(overBare))}`);
    return [{
      ...FLOOR_RATIO, value: ratio, ratio,
      baseline: `floor (C, one write() per subscriber) ${round(floorMs)} ms; vigil ${round(vigilMs)} ms (medians; per-round ratios ` +
        `${round(Math.min(...ratios))}–${round(Math.max(...ratios))}); bare node:http over the floor ${round(median(bareRatios))}, in the same rounds: ${nodeShare}`,
    }, rss];
  } finally {
    await Promise.all(audiences.map((audience) => audience.subscribers.close()));
    await Promise.all(servers.map(stopProcess));
    if ('program' in built) rmSync(built.program, { force: true });
  }
}
