import type { ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { DAEMON_NODE_FLAGS, machine, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const CYCLES = Number(process.env.BENCH_CYCLES ?? 100_000);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50);
/** Cycles before the "before" measurement: JIT, sockets and lazily loaded code are then in both measurements, not in the ratio. */
const WARMUP = 1000;
/** The default cap, and the baseline's: far above every instance the run deregisters. */
const CAP = 10_000;
const UNCAPPED = 10_000_000;
/** How long a client waits for Vigil's first health check of its pod before it deregisters anyway. */
const CHECK_WAIT_MS = 5000;
const RATIO: FigureSpec = { name: 'churn-rss-ratio', target: 1.1, kind: 'max' };
export const figures = [RATIO];

/** Memory of the daemon after full GCs, as `gc-on-signal` reports it (bytes). */
interface Memory {
  /** Once V8 has handed back what the GCs freed (gc-on-signal.ts). */
  readonly rss: number;
  /** Read at once after the GCs, as the figure was read before 2026-11-26. */
  readonly rssAtOnce: number;
  readonly heapUsed: number;
  readonly heapTotal: number;
  readonly external: number;
}

/**
 * The pods of a Kubernetes redeploy: each lives under `/pod-<n>/actuator` on one loopback server
 * and answers health UP, an actuator index and info, as a Spring Boot pod does. `checked(n)`
 * resolves once Vigil's first health check of pod n was answered.
 */
class Pods {
  readonly #waiting = new Map<number, () => void>();
  readonly server: Server;

  constructor() {
    this.server = createServer((req, res) => {
      const match = /^\/pod-(\d+)\/actuator(?:\/(health|info))?$/.exec(req.url ?? '');
      if (!match) return void res.writeHead(404).end();
      const n = Number(match[1]);
      const base = `${this.origin}/pod-${n}/actuator`;
      const body = match[2] === 'health' ? { status: 'UP' }
        : match[2] === 'info' ? { build: { artifact: 'shop', version: '1.4.2' } }
          : { _links: { self: { href: base }, health: { href: `${base}/health` }, info: { href: `${base}/info` } } };
      res.writeHead(200, { 'content-type': 'application/vnd.spring-boot.actuator.v3+json' }).end(JSON.stringify(body));
      if (match[2] === 'health') res.once('finish', () => this.#waiting.get(n)?.());
    });
    this.server.keepAliveTimeout = 60_000;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async listen(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
  }

  /** Resolves true when pod n's health was checked, false after `CHECK_WAIT_MS`. */
  checked(n: number): { promise: Promise<boolean>; cancel: () => void } {
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<boolean>((resolve) => {
      timer = setTimeout(() => resolve(false), CHECK_WAIT_MS);
      this.#waiting.set(n, () => resolve(true));
    }).finally(() => {
      clearTimeout(timer);
      this.#waiting.delete(n);
    });
    return { promise, cancel: () => this.#waiting.get(n)?.() };
  }

  registration(n: number): string {
    return JSON.stringify({
      name: `app-${n % 50}`,
      healthUrl: `${this.origin}/pod-${n}/actuator/health`,
      managementUrl: `${this.origin}/pod-${n}/actuator`,
      serviceUrl: `${this.origin}/pod-${n}/`,
      metadata: { startup: new Date(1_800_000_000_000 + n).toISOString(), 'tags.env': 'bench', 'pod-template-hash': `rs-${Math.floor(n / 100)}` },
    });
  }
}

/** The daemon under test, started with `--expose-gc` and the bench's GC-on-signal module. */
class Daemon {
  #lines = '';
  readonly #gcWaiters: ((memory: Memory) => void)[] = [];

  private constructor(readonly child: ChildProcess, readonly url: string, readonly config: string) {
    child.stdout!.on('data', (chunk: Buffer) => {
      this.#lines += chunk.toString('utf8');
      let end: number;
      while ((end = this.#lines.indexOf('\n')) >= 0) {
        const line = this.#lines.slice(0, end);
        this.#lines = this.#lines.slice(end + 1);
        if (line.startsWith('churn-gc ')) this.#gcWaiters.shift()?.(JSON.parse(line.slice(9)) as Memory);
      }
    });
  }

  static async start(cap: number): Promise<Daemon> {
    const config = join(tmpdir(), `vigil-bench-churn-${process.pid}-${cap}.yaml`);
    // A redeploy's pods are checked (health, detection, info) while they live: the monitor stays on.
    writeFileSync(config, `host: 127.0.0.1\nport: 0\nplugins: [rest-api, monitor, detect-index]\nevent-store:\n  max-deregistered-instances: ${cap}\n`);
    const gcModule = pathToFileURL(join(root, 'dist', 'bench', 'churn', 'gc-on-signal.js')).href;
    const { child, url } = await startProcess(['--expose-gc', '--import', gcModule, ...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config]);
    return new Daemon(child, url, config);
  }

  /** Full GCs in the daemon, then its memory. */
  async afterGc(): Promise<Memory> {
    const memory = new Promise<Memory>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the daemon did not answer SIGUSR2 within 30 s')), 30_000);
      this.#gcWaiters.push((value) => {
        clearTimeout(timer);
        if ('error' in value) reject(new Error(String((value as { error: unknown }).error)));
        resolve(value);
      });
    });
    this.child.kill('SIGUSR2');
    return memory;
  }

  async stop(): Promise<void> {
    await stopProcess(this.child);
    rmSync(this.config, { force: true });
  }
}

/** `count` register → (first health check) → deregister cycles from `CLIENTS` keep-alive clients; pods numbered from `first`. */
async function churn(url: string, pods: Pods, first: number, count: number): Promise<{ seconds: number; unchecked: number }> {
  const origin = new URL(url);
  const pool = new Pool(origin.origin, { connections: CLIENTS, pipelining: 1 });
  const prefix = origin.pathname.replace(/\/$/, '');
  let next = first;
  let unchecked = 0;
  const started = performance.now();
  const client = async () => {
    while (next < first + count) {
      const n = next++;
      const checked = pods.checked(n);
      const posted = await pool.request({ method: 'POST', path: `${prefix}/instances`, headers: { 'content-type': 'application/json' }, body: pods.registration(n) });
      const text = await posted.body.text();
      if (posted.statusCode !== 201) {
        checked.cancel();
        throw new Error(`POST /instances answered ${posted.statusCode}: ${text}`);
      }
      if (!(await checked.promise)) unchecked += 1;
      const deleted = await pool.request({ method: 'DELETE', path: `${prefix}/instances/${(JSON.parse(text) as { id: string }).id}` });
      await deleted.body.dump();
      if (deleted.statusCode !== 204) throw new Error(`DELETE /instances answered ${deleted.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CLIENTS }, client));
  } finally {
    await pool.close();
  }
  return { seconds: (performance.now() - started) / 1000, unchecked };
}

/** The deregistered instances the daemon still holds: distinct ids in its event list. */
async function heldInstances(url: string): Promise<number> {
  const events = (await (await fetch(`${url}/instances/events`)).json()) as { instance: string }[];
  return new Set(events.map((event) => event.instance)).size;
}

interface Outcome {
  readonly fresh: Memory;
  readonly before: Memory;
  /** After the first `CAP` cycles (warm-up included). */
  readonly atCap: Memory;
  readonly after: Memory;
  readonly seconds: number;
  readonly unchecked: number;
  readonly held: number | undefined;
}

async function measure(cap: number, pods: Pods, first: number, countHeld: boolean): Promise<Outcome> {
  const daemon = await Daemon.start(cap);
  try {
    const fresh = await daemon.afterGc();
    await churn(daemon.url, pods, first, WARMUP);
    const before = await daemon.afterGc();
    // A look when the capped daemon first holds CAP deregistered instances: from then on the cap drops one per deregistration.
    const toCap = Math.max(0, Math.min(CYCLES, CAP - WARMUP));
    const one = await churn(daemon.url, pods, first + WARMUP, toCap);
    const atCap = await daemon.afterGc();
    const two = await churn(daemon.url, pods, first + WARMUP + toCap, CYCLES - toCap);
    const seconds = one.seconds + two.seconds;
    const unchecked = one.unchecked + two.unchecked;
    // Checks, detections and info reads still under way finish (they write nothing after DEREGISTERED).
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = await daemon.afterGc();
    // Counted after the measurement: the baseline's list of every event would itself take memory.
    const held = countHeld ? await heldInstances(daemon.url) : undefined;
    return { fresh, before, atCap, after, seconds, unchecked, held };
  } finally {
    await daemon.stop();
  }
}

const mb = (bytes: number) => round(bytes / 1e6);

function describe(label: string, outcome: Outcome): string {
  const { fresh, before, after } = outcome;
  return `${label}: ${CYCLES} cycles in ${round(outcome.seconds)} s (${Math.round(CYCLES / outcome.seconds)}/s, ${outcome.unchecked} deregistered before their first check); `
    + `RSS after full GC: fresh ${mb(fresh.rss)} MB, after ${WARMUP} warm-up cycles ${mb(before.rss)} MB, after ${CAP} cycles ${mb(outcome.atCap.rss)} MB, after the run ${mb(after.rss)} MB `
    + `(ratio ${round(after.rss / before.rss)}; from ${CAP} cycles on ${round(after.rss / outcome.atCap.rss)}; read at once after the GCs: ${mb(before.rssAtOnce)} → ${mb(outcome.atCap.rssAtOnce)} → ${mb(after.rssAtOnce)} MB, ratio ${round(after.rssAtOnce / before.rssAtOnce)}); `
    + `heap used ${mb(before.heapUsed)} → ${mb(outcome.atCap.heapUsed)} → ${mb(after.heapUsed)} MB, `
    + `committed ${mb(before.heapTotal)} → ${mb(outcome.atCap.heapTotal)} → ${mb(after.heapTotal)} MB, external ${mb(before.external)} → ${mb(outcome.atCap.external)} → ${mb(after.external)} MB${outcome.held === undefined ? '' : `; ${outcome.held} deregistered instances held`}`;
}

/**
 * Churn: a Kubernetes-style redeploy that never ends. 50 keep-alive clients run 100,000 cycles
 * of: register a new pod (new address, new id) → Vigil checks it (health UP on a loopback fake,
 * then endpoint detection and info, as for a real pod) → deregister it. The retention (1 h)
 * never runs out during the run, so only `event-store.max-deregistered-instances` (default
 * 10,000) bounds what is held. The figure: the daemon's RSS after a full GC at the end over the
 * same after a 1,000-cycle warm-up (so it includes the growth from 1,000 to 10,000 held histories);
 * RSS when the cap is first reached (after 10,000 cycles) is printed too: the growth from there
 * is what the cap stops. The baseline, in the same run: the same cycles with the cap far
 * above them (10,000,000), where every history stays for the retention. The full GC comes from a
 * bench-only module loaded with `--expose-gc --import` that answers SIGUSR2 (gc-on-signal.ts);
 * RSS is read once V8 has handed back the pages the GC freed (it does so in the background), and
 * the read at once after the GCs is printed too.
 */
export async function run(): Promise<Figure[]> {
  console.log(`churn: ${machine()}; ${CYCLES} register/deregister cycles from ${CLIENTS} clients, cap ${CAP} vs ${UNCAPPED}`);
  const pods = new Pods();
  await pods.listen();
  try {
    const capped = await measure(CAP, pods, 0, true);
    console.log(`  ${describe(`cap ${CAP}`, capped)}`);
    const expected = Math.min(CAP, WARMUP + CYCLES);
    if (capped.held !== expected) throw new Error(`the capped daemon holds ${capped.held} deregistered instances, not ${expected}`);
    const uncapped = await measure(UNCAPPED, pods, 1_000_000, false);
    console.log(`  ${describe(`cap ${UNCAPPED} (baseline)`, uncapped)}`);
    const ratio = capped.after.rss / capped.before.rss;
    const baselineRatio = uncapped.after.rss / uncapped.before.rss;
    return [{
      ...RATIO, value: ratio, ratio: ratio / baselineRatio,
      baseline: `cap ${UNCAPPED} (every history kept for the 1 h retention): RSS ${mb(uncapped.before.rss)} → ${mb(uncapped.after.rss)} MB, ratio ${round(baselineRatio)}; `
        + `capped: ${mb(capped.before.rss)} → ${mb(capped.atCap.rss)} (at ${CAP} cycles, the cap reached) → ${mb(capped.after.rss)} MB, `
        + `${round(capped.after.rss / capped.atCap.rss)} from the cap on (fresh ${mb(capped.fresh.rss)} MB), ${capped.held} held, heap ${mb(capped.before.heapUsed)} → ${mb(capped.atCap.heapUsed)} → ${mb(capped.after.heapUsed)} MB; `
        + `${Math.round(CYCLES / capped.seconds)} cycles/s`,
    }];
  } finally {
    pods.server.closeAllConnections();
    await new Promise((resolve) => pods.server.close(resolve));
  }
}
