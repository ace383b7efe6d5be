import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Receiver } from './receiver.js';
import { ROUTED_BURST, ROUTED_LOST, runRouted } from './routed.js';
import { DAEMON_NODE_FLAGS, machine, median, residentKb, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_NOTIFY_INSTANCES ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/** Instances that go DOWN and back before the measure: a daemon that has notified before. */
const WARM_UP = 200;
const BURST: FigureSpec = { name: 'notify-burst-ms', target: 2000, kind: 'max', unit: 'ms' };
const LOST: FigureSpec = { name: 'notify-lost', target: 0, kind: 'max' };
const RSS: FigureSpec = { name: 'notify-rss-growth-mb', target: 32, kind: 'max', unit: 'MB' };
export const figures = [BURST, LOST, RSS, ROUTED_BURST, ROUTED_LOST];

/**
 * 2,000 instances change status at once (DOWN and OUT_OF_SERVICE alternately, then back to UP:
 * not OFFLINE, so storm control does not apply), with the webhook channel pointed at a local
 * receiver. Per round: the time from the changes being recorded to the last notification received,
 * and how many never arrived; across rounds the daemon's RSS growth over its idle RSS (sampled
 * every 10 ms), once it has sent a few hundred notifications. The changes are recorded by a small bench plugin (loaded by path) rather than by
 * 2,000 fake health endpoints, so the figure is the notification path's and not the poller's.
 */
export async function run(): Promise<Figure[]> {
  const plain = await runPlain();
  // Then the same burst through notify.routes to 20 targets (routed.ts).
  return [...plain, ...await runRouted()];
}

async function runPlain(): Promise<Figure[]> {
  console.log(`notify: ${machine()}; ${INSTANCES} instances, ${ROUNDS} rounds`);
  const receiver = new Receiver();
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve));
  const hook = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/hook`;
  const config = join(tmpdir(), `vigil-bench-notify-${process.pid}.yaml`);
  writeFileSync(config, JSON.stringify({
    host: '127.0.0.1', port: 0, 'log-level': 'info',
    plugins: ['rest-api', 'notify', 'notify-webhook', join(root, 'dist', 'bench', 'notify', 'status-plugin.js')],
    'notify-webhook': { url: hook, secret: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
  }));
  let daemon: ChildProcess | undefined;
  try {
    const started = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config]);
    daemon = started.child;
    const post = async (path: string) => {
      const res = await fetch(`${started.url}${path}`, { method: 'POST' });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    };
    await post(`/bench/instances?count=${INSTANCES}`);
    // UNKNOWN → UP is not notified (ignore-changes UNKNOWN:UP): the fleet settles silently.
    await post('/bench/status?status=UP');
    // A daemon that has notified before: the first few hundred notifications after start compile
    // undici's HTTP parser (WebAssembly) and get the send path optimised, a one-time cost of tens of
    // MB that is not what a burst costs. It is measured and reported beside the figure.
    const coldKb = residentKb(daemon.pid!);
    let warmPeakKb = coldKb;
    const warmSampler = setInterval(() => { warmPeakKb = Math.max(warmPeakKb, residentKb(daemon!.pid!)); }, 10);
    for (const status of ['DOWN', 'UP']) {
      const warm = receiver.expect(WARM_UP);
      await post(`/bench/status?status=${status}&limit=${WARM_UP}`);
      await warm;
    }
    clearInterval(warmSampler);
    const warmUpMb = ((warmPeakKb - coldKb) * 1024) / 1e6;
    const idleKb = residentKb(daemon.pid!);
    let peakKb = idleKb;
    const sampler = setInterval(() => { peakKb = Math.max(peakKb, residentKb(daemon!.pid!)); }, 10);
    const bursts: number[] = [];
    let lost = 0;
    try {
      for (let round = 0; round < ROUNDS; round++) {
        const status = round % 2 === 0 ? 'DOWN,OUT_OF_SERVICE' : 'UP';
        const arrived = receiver.expect(INSTANCES);
        const start = performance.now();
        await post(`/bench/status?status=${status}`);
        const recorded = performance.now() - start;
        await arrived;
        const missing = INSTANCES - receiver.ids.size;
        lost += missing;
        const burst = receiver.lastAt - start;
        bursts.push(missing > 0 ? Number.NaN : burst);
        console.log(`  round ${round + 1} (→ ${status}): ${receiver.ids.size} of ${INSTANCES} received, the last after ${Math.round(burst)} ms (the changes recorded after ${Math.round(recorded)} ms)`);
      }
    } finally {
      clearInterval(sampler);
    }
    const growthMb = ((peakKb - idleKb) * 1024) / 1e6;
    const burst = bursts.some(Number.isNaN) ? Number.NaN : median(bursts);
    console.log(`notify: burst median ${round(burst)} ms (rounds ${bursts.map((b) => Math.round(b)).join(', ')}), lost ${lost}, RSS ${round((idleKb * 1024) / 1e6)} MB idle, `
      + `+${round(growthMb)} MB at peak (the first ${2 * WARM_UP} notifications after start: +${round(warmUpMb)} MB)`);
    return [
      { ...BURST, value: burst, baseline: `median of ${ROUNDS} rounds (${bursts.map((b) => Math.round(b)).join(', ')} ms), ${INSTANCES} signed webhooks each` },
      { ...LOST, value: lost, baseline: `${ROUNDS * INSTANCES} notifications sent` },
      {
        ...RSS, value: growthMb,
        baseline: `idle ${round((idleKb * 1024) / 1e6)} MB with ${INSTANCES} instances registered, after ${2 * WARM_UP} notifications; those first ones after start grew it ${round(warmUpMb)} MB (one-time JIT and parser compilation)`,
      },
    ];
  } finally {
    if (daemon) await stopProcess(daemon);
    rmSync(config, { force: true });
    receiver.server.closeAllConnections();
    await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
  }
}
