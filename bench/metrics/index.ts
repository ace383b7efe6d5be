import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_METRICS_N ?? 20_000);
const APPLICATIONS = 200;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
/** Requests of each kind per round; the round's time of a kind is their median. */
const PER_ROUND = 5;
const REGISTRATION_CONCURRENCY = 32;

const SCRAPE: FigureSpec = { name: 'metrics-scrape-ratio', target: 0.25, kind: 'max' };
const SD: FigureSpec = { name: 'sd-ratio', target: 1.0, kind: 'max' };
export const figures = [SCRAPE, SD];

/** Registration bodies: N instances in 200 applications, with metadata and tags like a real fleet's. */
function registration(i: number): string {
  const host = `10.${Math.floor(i / 65_536) % 256}.${Math.floor(i / 256) % 256}.${i % 256}`;
  return JSON.stringify({
    name: `app-${i % APPLICATIONS}`,
    healthUrl: `http://${host}:8080/actuator/health`,
    managementUrl: `http://${host}:8080/actuator`,
    serviceUrl: `http://${host}:8080/`,
    metadata: { startup: '2026-11-23T10:00:00Z', 'tags.env': 'bench', 'tags.zone': `z${i % 3}`, 'management.context-path': '/actuator', 'user.password': 'secret' },
  });
}

async function registerAll(agent: Agent, base: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < INSTANCES) {
      const body = registration(next++);
      const reply = await request(`${base}/instances`, { dispatcher: agent, method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await reply.body.dump();
      if (reply.statusCode !== 201) throw new Error(`registration failed: ${reply.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: REGISTRATION_CONCURRENCY }, worker));
}

/** Milliseconds until the whole body of one GET has arrived; its size is checked so nothing is cut short. */
async function timed(agent: Agent, url: string, minBytes: number): Promise<number> {
  const started = performance.now();
  const reply = await request(url, { dispatcher: agent });
  const body = await reply.body.arrayBuffer();
  const ms = performance.now() - started;
  if (reply.statusCode !== 200 || body.byteLength < minBytes) throw new Error(`${url}: ${reply.statusCode}, ${body.byteLength} bytes`);
  return ms;
}

/**
 * Scrape cost at fleet size (issue 18): the daemon (`rest-api`, `metrics`, `prometheus-sd`; no
 * monitor, the addresses are not reachable) holds 20,000 instances in 200 applications, and in
 * each round answers `GET /instances` (the baseline: the same registry serialised by the API
 * every dashboard uses), `GET /metrics` and `GET /prometheus/sd`, five times each, in an order
 * that rotates every round. The figures are the medians of the per-round ratios of median times.
 */
export async function run(): Promise<Figure[]> {
  console.log(`metrics: ${INSTANCES} instances in ${APPLICATIONS} applications, ${ROUNDS} rounds of ${PER_ROUND} requests of each kind; ${machine()}`);
  const config = join(tmpdir(), `vigil-bench-metrics-${process.pid}.yaml`);
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nlog-level: warn\nplugins: [rest-api, metrics, prometheus-sd]\n');
  const agent = new Agent({ connections: REGISTRATION_CONCURRENCY, bodyTimeout: 120_000, headersTimeout: 120_000 });
  let child: ChildProcess | undefined;
  try {
    const vigil = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
    child = vigil.child;
    const registering = performance.now();
    await registerAll(agent, vigil.url);
    console.log(`  registered ${INSTANCES} in ${Math.round(performance.now() - registering)} ms`);
    const kinds = [
      { name: 'instances', url: `${vigil.url}/instances`, minBytes: INSTANCES * 100, times: [] as number[] },
      { name: 'metrics', url: `${vigil.url}/metrics`, minBytes: APPLICATIONS * 6 * 30, times: [] as number[] },
      { name: 'sd', url: `${vigil.url}/prometheus/sd`, minBytes: INSTANCES * 100, times: [] as number[] },
    ];
    // Warm-up: the first answers compile code paths and fill the views' caches.
    for (const kind of kinds) for (let i = 0; i < 2; i += 1) await timed(agent, kind.url, kind.minBytes);
    const scrapeRatios: number[] = [];
    const sdRatios: number[] = [];
    for (let index = 0; index < ROUNDS; index += 1) {
      const order = [...kinds.slice(index % kinds.length), ...kinds.slice(0, index % kinds.length)];
      const round: Record<string, number> = {};
      for (const kind of order) {
        const times: number[] = [];
        for (let i = 0; i < PER_ROUND; i += 1) times.push(await timed(agent, kind.url, kind.minBytes));
        round[kind.name] = median(times);
        kind.times.push(round[kind.name]!);
      }
      scrapeRatios.push(round.metrics! / round.instances!);
      sdRatios.push(round.sd! / round.instances!);
      console.log(`  round ${index + 1}: /instances ${round.instances!.toFixed(1)} ms, /metrics ${round.metrics!.toFixed(1)} ms, /prometheus/sd ${round.sd!.toFixed(1)} ms`);
    }
    const [instancesMs, metricsMs, sdMs] = kinds.map((kind) => median(kind.times)) as [number, number, number];
    const scrape = median(scrapeRatios);
    const sd = median(sdRatios);
    console.log(`metrics (medians): /instances ${instancesMs.toFixed(1)} ms, /metrics ${metricsMs.toFixed(1)} ms (ratio ${round(scrape)}), /prometheus/sd ${sdMs.toFixed(1)} ms (ratio ${round(sd)})`);
    const spread = (ratios: number[]) => `${round(Math.min(...ratios))}–${round(Math.max(...ratios))}`;
    return [
      { ...SCRAPE, value: scrape, ratio: scrape, baseline: `GET /instances ${instancesMs.toFixed(1)} ms, GET /metrics ${metricsMs.toFixed(1)} ms (medians, ${INSTANCES} instances); per-round ratios ${spread(scrapeRatios)}` },
      { ...SD, value: sd, ratio: sd, baseline: `GET /instances ${instancesMs.toFixed(1)} ms, GET /prometheus/sd ${sdMs.toFixed(1)} ms (medians); per-round ratios ${spread(sdRatios)}` },
    ];
  } finally {
    await agent.close();
    if (child) await stopProcess(child);
    rmSync(config, { force: true });
  }
}
