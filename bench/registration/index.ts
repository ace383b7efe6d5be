import autocannon, { type Request as LoadRequest } from 'autocannon';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const CONNECTIONS = 100;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 10);
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

async function load(url: string, requests: LoadRequest[]): Promise<number> {
  const result = await autocannon({ url, connections: CONNECTIONS, duration: DURATION_S, requests });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx and ${result.errors} errors under load`);
  return result.requests.average;
}

/**
 * Heartbeat re-registration throughput: POST /instances of already-registered instances (SBA
 * clients re-register every 10 s), 100 connections, against the bare baseline.
 */
export async function run(): Promise<Figure[]> {
  const requests = registrations();
  const config = join(tmpdir(), `vigil-bench-registration-${process.pid}.yaml`);
  // Only the registry path is measured: no monitor polling the (unreachable) benchmark addresses.
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nlog-level: warn\nplugins: [rest-api]\n');

  const baseline = await startProcess(['-e', BASELINE]);
  let baselineRps: number;
  try {
    await load(baseline.url, requests.slice(0, 100));
    baselineRps = await load(baseline.url, requests);
  } finally {
    await stopProcess(baseline.child);
  }

  const vigil = await startProcess([join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
  let vigilRps: number;
  try {
    for (const request of requests) {
      const res = await fetch(`${vigil.url}${request.path}`, { method: 'POST', headers: request.headers!, body: request.body! });
      if (res.status !== 201) throw new Error(`registration failed: ${res.status}`);
    }
    await load(vigil.url, requests.slice(0, 100));
    vigilRps = await load(vigil.url, requests);
  } finally {
    await stopProcess(vigil.child);
  }

  const ratio = vigilRps / baselineRps;
  console.log(`registration: vigil ${round(vigilRps)} req/s, bare node:http ${round(baselineRps)} req/s, ratio ${round(ratio)}`);
  return [{ ...RATIO, value: ratio, baseline: `bare node:http ${Math.round(baselineRps)} req/s; vigil ${Math.round(vigilRps)} req/s`, ratio }];
}


