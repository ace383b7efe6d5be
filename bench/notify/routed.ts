import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from './receiver.js';
import { DAEMON_NODE_FLAGS, median, root, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_NOTIFY_INSTANCES ?? 2000);
const APPLICATIONS = 100;
const ROUTES = 50;
const TARGETS = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const WARM_UP = 200;
export const ROUTED_BURST: FigureSpec = { name: 'notify-routed-burst-ms', target: 2000, kind: 'max', unit: 'ms' };
export const ROUTED_LOST: FigureSpec = { name: 'notify-routed-lost', target: 0, kind: 'max' };

/** Route `r` takes applications `app-2r` and `app-2r+1` to target `t<r mod 20>`: every application has one team. */
const targetOf = (application: number): string => `t${Math.floor(application / 2) % TARGETS}`;

/**
 * One receiver for the 20 targets (one path each): a notification counts when it arrived at the
 * path of the target its application is routed to; one at another path is misrouted and counts as lost.
 */
const atItsTeam = (path: string, body: unknown): boolean => {
  const application = Number(/^app-(\d+)$/.exec((body as { instance?: { name?: string } }).instance?.name ?? '')?.[1] ?? -1);
  return path === `/${targetOf(application)}`;
};

/**
 * 2,000 instances in 100 applications change status at once, with `notify.routes` of 50 routes
 * to 20 targets of the webhook channel (each target its own queue): the time from the changes
 * being recorded to the last routed notification received, and how many never arrived (or arrived
 * at another team's target). Per round, as `notify-burst-ms` measures the unrouted path.
 */
export async function runRouted(): Promise<Figure[]> {
  const receiver = new Receiver(atItsTeam);
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}`;
  const targets = Object.fromEntries(Array.from({ length: TARGETS }, (_, t) => [`t${t}`, { url: `${base}/t${t}` }]));
  const routes = Array.from({ length: ROUTES }, (_, r) => ({ applications: [`app-${2 * r}`, `app-${2 * r + 1}`], to: [`notify-webhook:t${r % TARGETS}`] }));
  const config = join(tmpdir(), `vigil-bench-notify-routed-${process.pid}.yaml`);
  writeFileSync(config, JSON.stringify({
    host: '127.0.0.1', port: 0, 'log-level': 'info',
    plugins: ['rest-api', 'notify', 'notify-webhook', join(root, 'dist', 'bench', 'notify', 'status-plugin.js')],
    notify: { routes },
    'notify-webhook': { url: `${base}/default`, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}`, targets },
  }));
  let daemon: ChildProcess | undefined;
  try {
    const started = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config]);
    daemon = started.child;
    const post = async (path: string) => {
      const res = await fetch(`${started.url}${path}`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post(`/bench/instances?count=${INSTANCES}&applications=${APPLICATIONS}`);
    await post('/bench/status?status=UP');
    for (const status of ['DOWN', 'UP']) {
      const warm = receiver.expect(WARM_UP);
      await post(`/bench/status?status=${status}&limit=${WARM_UP}`);
      await warm;
    }
    const bursts: number[] = [];
    let lost = 0;
    for (let round = 0; round < ROUNDS; round++) {
      const status = round % 2 === 0 ? 'DOWN,OUT_OF_SERVICE' : 'UP';
      const arrived = receiver.expect(INSTANCES);
      const start = performance.now();
      await post(`/bench/status?status=${status}`);
      await arrived;
      const missing = INSTANCES - receiver.ids.size;
      lost += missing;
      const burst = receiver.lastAt - start;
      bursts.push(missing > 0 ? Number.NaN : burst);
      console.log(`  routed round ${round + 1} (→ ${status}): ${receiver.ids.size} of ${INSTANCES} received at their team's target, the last after ${Math.round(burst)} ms`);
    }
    const burst = bursts.some(Number.isNaN) ? Number.NaN : median(bursts);
    console.log(`notify routed: burst median ${Math.round(burst)} ms, lost ${lost}, misrouted ${receiver.misrouted}`);
    return [
      { ...ROUTED_BURST, value: burst, baseline: `median of ${ROUNDS} rounds (${bursts.map((b) => Math.round(b)).join(', ')} ms), ${INSTANCES} instances in ${APPLICATIONS} applications, ${ROUTES} routes to ${TARGETS} targets` },
      { ...ROUTED_LOST, value: lost + receiver.misrouted, baseline: `${ROUNDS * INSTANCES} notifications routed; ${receiver.misrouted} at another target` },
    ];
  } finally {
    if (daemon) await stopProcess(daemon);
    rmSync(config, { force: true });
    receiver.server.closeAllConnections();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  }
}
