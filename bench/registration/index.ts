import autocannon, { type Request as LoadRequest } from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const CONNECTIONS = 100;
/** Short rounds, as bench/proxy: in a few seconds both servers see nearly the same machine. */
const DURATION_S = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const WARMUP_S = 2;
const INSTANCES = 1000;
const RATIO: FigureSpec = { name: 'registration-ratio', target: 0.6, kind: 'min' };
export const figures = [RATIO];

/**
 * A bare node:http server that parses the same JSON body and answers 201 with an id: the most a
 * Node server can do for this request, measured with the same load generator in the same run.
 */
const BASELINE = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const text = JSON.stringify({ id: String(body.healthUrl).length.toString(16).padStart(12, '0') });
    res.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), location: '/instances/x' });
    res.end(text);
  });
});
server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

function registrations(): LoadRequest[] {
  return Array.from({ length: INSTANCES }, (_, i) => ({
    method: 'POST',
    path: '/instances',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      name: `app-${i % 50}`,
      healthUrl: `http://10.0.${Math.floor(i / 250)}.${i % 250}:8080/actuator/health`,
      managementUrl: `http://10.0.${Math.floor(i / 250)}.${i % 250}:8080/actuator`,
      serviceUrl: `http://10.0.${Math.floor(i / 250)}.${i % 250}:8080/`,
      metadata: { startup: '2026-11-22T10:00:00Z', 'tags.env': 'bench', 'user.name': 'ops', 'user.password': 'secret' },
    }),
  }));
}

/** One autocannon run; any non-2xx, error or timeout fails the benchmark. */
async function load(url: string, requests: LoadRequest[], seconds: number): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, requests });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts under load`);
  }
  return result.requests.average;
}

/**
 * Heartbeat re-registration throughput: POST /instances of already-registered instances (SBA
 * clients re-register every 10 s), 100 connections, against the bare baseline. Both servers run
 * side by side and are measured in interleaved short rounds, the order reversed every round; the
 * figure is the median of the per-round ratios (one long run of each swung from 0.28 to 0.75
 * with the machine's load).
 */
export async function run(): Promise<Figure[]> {
  console.log(`registration: ${machine()}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s each`);
  const requests = registrations();
  const config = join(tmpdir(), `vigil-bench-registration-${process.pid}.yaml`);
  // Only the registry path is measured: no monitor polling the (unreachable) benchmark addresses.
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nlog-level: warn\nplugins: [rest-api]\n');

  const started: ChildProcess[] = [];
  try {
    const baseline = await startProcess(['-e', BASELINE]);
    started.push(baseline.child);
    const vigil = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
    started.push(vigil.child);
    for (const request of requests) {
      const res = await fetch(`${vigil.url}${request.path}`, { method: 'POST', headers: request.headers!, body: request.body! });
      if (res.status !== 201) throw new Error(`registration failed: ${res.status}`);
    }
    const contenders = [{ name: 'bare node:http', url: baseline.url, runs: [] as number[] }, { name: 'vigil', url: vigil.url, runs: [] as number[] }];
    for (const contender of contenders) await load(contender.url, requests, WARMUP_S);
    const ratios: number[] = [];
    for (let index = 0; index < ROUNDS; index++) {
      const order = index % 2 === 0 ? contenders : [...contenders].reverse();
      for (const contender of order) contender.runs.push(await load(contender.url, requests, DURATION_S));
      const [bare, ours] = contenders.map((contender) => contender.runs[index]!) as [number, number];
      ratios.push(ours / bare);
      console.log(`  round ${index + 1}: vigil ${Math.round(ours)} req/s, bare node:http ${Math.round(bare)} req/s, ratio ${round(ours / bare)}`);
    }
    const [bareRps, vigilRps] = contenders.map((contender) => median(contender.runs)) as [number, number];
    const ratio = median(ratios);
    console.log(`registration (medians): vigil ${Math.round(vigilRps)} req/s, bare node:http ${Math.round(bareRps)} req/s; ` +
      `ratio ${round(ratio)} (per round ${round(Math.min(...ratios))} to ${round(Math.max(...ratios))})`);
    return [{
      ...RATIO, value: ratio, ratio,
      baseline: `bare node:http ${Math.round(bareRps)} req/s; vigil ${Math.round(vigilRps)} req/s (medians); median of ${ROUNDS} per-round ratios, ${round(Math.min(...ratios))}–${round(Math.max(...ratios))}`,
    }];
  } finally {
    await Promise.all(started.map(stopProcess));
  }
}
