import { fork, type ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import type { Reply } from '../sse/subscribers.js';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 10_000);
const APPLICATIONS = 100;
/** Events per daemon, taking turns; the figure is the median of the per-round ratios. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const WARMUP_ROUNDS = 2;
const SETTLE_MS = 1000;
export const FANOUT: FigureSpec = { name: 'access-fanout-ratio', target: 1.2, kind: 'max' };

const ADMIN = `Basic ${Buffer.from('admin:bench-admin').toString('base64')}`;
const viewer = (n: number) => `Basic ${Buffer.from(`viewer-${n}:bench-viewer`).toString('base64')}`;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The subscriber process of bench/sse, holding one daemon's streams, signed in as `authorizations` in turn. */
class Audience {
  readonly #child: ChildProcess;
  readonly lastMs: number[] = [];
  events = 0;

  constructor(readonly name: string, readonly url: string, authorizations: readonly string[], readonly scoped: boolean) {
    this.#child = fork(join(root, 'dist', 'bench', 'sse', 'subscribers.js'), [url, '/instances/events', String(SUBSCRIBERS), JSON.stringify(authorizations)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  }

  ask(message: object): Promise<Reply> {
    return new Promise((resolve, reject) => {
      this.#child.once('message', (reply: Reply) => ('error' in reply ? reject(new Error(`${this.name}: ${reply.error}`)) : resolve(reply)));
      this.#child.send(message);
    });
  }

  /** One registration in application `app-{n}`, timed until the last subscriber who may see it has it. */
  async event(application: number, measured: boolean): Promise<number> {
    const body = JSON.stringify({ name: `app-${application}`, healthUrl: `http://127.0.0.1:9/actuator/health?round=${this.events++}` });
    const result = await this.ask({ cmd: 'round', path: '/instances', body, authorization: ADMIN, ...(this.scoped ? { group: application } : {}) }) as { lastMs: number; status: number };
    if (result.status !== 201) throw new Error(`${this.name}: trigger answered ${result.status}`);
    if (measured) this.lastMs.push(result.lastMs);
    await pause(200);
    return result.lastMs;
  }

  close(): Promise<void> {
    if (this.#child.exitCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.send({ cmd: 'close' });
    return exited;
  }
}

/**
 * One event to 10,000 `/instances/events` subscribers each scoped to one of 100 applications
 * (viewer-N is granted app-N; subscriber i signs in as viewer-(i mod 100), so each application's
 * 100 are spread over the whole list), over the same event to 10,000 subscribers who see
 * everything (an admin). Two daemons with the same config, one per audience, take turns, one event
 * each per round (a registration in a different application each round), the order reversed every
 * round; each event is timed from the request that records it until the last subscriber who may
 * see it has it: the event's 100 for the scoped audience (the other 9,900 are checked and must get
 * nothing: one that does fails the run), all 10,000 for the baseline. The figure is the median of
 * the per-round ratios, scoped over unscoped.
 */
export async function runFanout(): Promise<Figure[]> {
  console.log(`access fan-out: ${machine()}; ${SUBSCRIBERS} subscribers per daemon, scoped to one of ${APPLICATIONS} applications or to all; ${ROUNDS} events each after ${WARMUP_ROUNDS} warm-up events`);
  const config = join(tmpdir(), `vigil-bench-access-fanout-${process.pid}.yaml`);
  const users = Array.from({ length: APPLICATIONS }, (_, n) => `    - { username: viewer-${n}, password: bench-viewer }`);
  const grants = Array.from({ length: APPLICATIONS }, (_, n) => `    - { subjects: [user:viewer-${n}], role: viewer, applications: [app-${n}] }`);
  writeFileSync(config, [
    'host: 127.0.0.1', 'port: 0', 'log-level: warn', 'plugins: [rest-api, sse, basic-auth]', 'server:', `  max-connections: ${SUBSCRIBERS + 1000}`,
    'basic-auth:', '  users:', '    - { username: admin, password: bench-admin, role: admin }', ...users,
    'access:', '  grants:', ...grants, '',
  ].join('\n'));
  const daemons: ChildProcess[] = [];
  const audiences: Audience[] = [];
  try {
    const start = async () => {
      const daemon = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
      daemons.push(daemon.child);
      return daemon.url;
    };
    const everything = new Audience('unscoped (admin)', await start(), [ADMIN], false);
    audiences.push(everything);
    const scoped = new Audience(`scoped (one of ${APPLICATIONS} applications each)`, await start(), Array.from({ length: APPLICATIONS }, (_, n) => viewer(n)), true);
    audiences.push(scoped);
    // Each password checked once first (scrypt): the connections then find them remembered, not queued.
    for (const [url, authorization] of [[everything.url, ADMIN], ...Array.from({ length: APPLICATIONS }, (_, n) => [scoped.url, viewer(n)])] as const) {
      const res = await fetch(`${url}/access/me`, { headers: { authorization } });
      if (res.status !== 200) throw new Error(`GET /access/me: ${res.status}`);
    }
    for (const audience of audiences) {
      const connected = await audience.ask({ cmd: 'connect' }) as { connected: number; ms: number };
      console.log(`  ${audience.name}: ${connected.connected} subscribers connected in ${Math.round(connected.ms)} ms`);
    }
    await pause(SETTLE_MS);
    for (let index = 0; index < WARMUP_ROUNDS; index++) for (const audience of audiences) await audience.event(index, false);
    const ratios: number[] = [];
    for (let index = 0; index < ROUNDS; index++) {
      // A different application each round, spread over the hundred.
      const application = (WARMUP_ROUNDS + index * 37) % APPLICATIONS;
      const order = index % 2 === 0 ? audiences : [...audiences].reverse();
      const times = new Map<Audience, number>();
      for (const audience of order) times.set(audience, await audience.event(application, true));
      ratios.push(times.get(scoped)! / times.get(everything)!);
    }
    const [scopedMs, allMs, ratio] = [median(scoped.lastMs), median(everything.lastMs), median(ratios)];
    console.log(`access fan-out: scoped ${scoped.lastMs.map(round).join(', ')} ms (median ${round(scopedMs)}); unscoped ${everything.lastMs.map(round).join(', ')} ms (median ${round(allMs)}); per-round ratios ${ratios.map(round).join(', ')}: median ${round(ratio)}`);
    return [{
      ...FANOUT, value: ratio, ratio,
      baseline: `the same event to ${SUBSCRIBERS} unscoped subscribers (an admin's) of a second daemon, rounds interleaved: median ${round(allMs)} ms to the last of them; ` +
        `scoped: ${round(scopedMs)} ms to the last of the event's ${SUBSCRIBERS / APPLICATIONS} (the other ${SUBSCRIBERS - SUBSCRIBERS / APPLICATIONS} checked, none reached; per-round ratios ${round(Math.min(...ratios))}–${round(Math.max(...ratios))})`,
    }];
  } finally {
    await Promise.all(audiences.map((audience) => audience.close()));
    await Promise.all(daemons.map(stopProcess));
    rmSync(config, { force: true });
  }
}
