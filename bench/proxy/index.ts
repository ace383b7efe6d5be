import autocannon from 'autocannon';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { cpuMs, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { measureStreamMemory, type StreamMemory } from './stream-memory.js';
import { startProxyDaemon } from './vigil-daemon.js';

const CONNECTIONS = 64;
/**
 * Many short rounds rather than a few long ones: the machine is shared, and its speed drifts over
 * tens of seconds (the same proxy measured 10,000 and 17,000 req/s a minute apart). In rounds of
 * a few seconds, the contenders of one round see nearly the same machine, and the median of the
 * per-round ratios shrugs off the rounds that a neighbour's burst cut into.
 */
const DURATION_S = Number(process.env.BENCH_DURATION ?? 3);
const WARMUP_S = 2;
const REFERENCE_S = 3;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 12);
const STREAM_BYTES = 1024 ** 3;
const ENDPOINT = 'env';

const VERSUS_MINIMAL: FigureSpec = { name: 'proxy-ratio', target: 0.8, kind: 'min' };
const VERSUS_HTTP_PROXY: FigureSpec = { name: 'proxy-vs-http-proxy', target: 1.2, kind: 'min' };
const RSS_GROWTH: FigureSpec = { name: 'proxy-rss-growth-mb', target: 32, kind: 'max', unit: 'MB' };
export const figures = [VERSUS_MINIMAL, VERSUS_HTTP_PROXY, RSS_GROWTH];

const script = (name: string) => join(root, 'dist', 'bench', 'proxy', `${name}.js`);

interface Load {
  readonly rps: number;
  /** CPU time the server process spent per request (user + system), in microseconds. */
  readonly cpuUs: number;
}

/** One autocannon run against `url`; any non-2xx, error or timeout fails the benchmark. */
async function load(url: string, seconds: number, pid: number): Promise<Load> {
  const before = cpuMs(pid);
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds });
  const spent = cpuMs(pid) - before;
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) {
    throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts under load`);
  }
  return { rps: result.requests.average, cpuUs: (spent * 1000) / result.requests.total };
}

/** The same answer through every path, or the comparison is meaningless. */
async function sameBody(urls: readonly string[]): Promise<void> {
  const bodies = await Promise.all(urls.map(async (url) => {
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`${url}: status ${res.status}`);
    return res.text();
  }));
  if (bodies.some((body) => body !== bodies[0])) throw new Error('the proxies do not return the same body');
}

interface Contender {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly runs: Load[];
}

function describeMemory(label: string, memory: StreamMemory): string {
  const mb = (kb: number) => round(kb / 1024);
  return `${label}: ${round(memory.bytes / 2 ** 30)} GiB in ${round(memory.seconds)} s (${Math.round(memory.bytes / 2 ** 20 / memory.seconds)} MiB/s), ` +
    `RSS ${mb(memory.beforeKb)} MB before, ${mb(memory.peakKb)} MB peak, growth ${mb(memory.peakKb - memory.beforeKb)} MB`;
}

/** A fresh proxy process, one small warm-up download, then 1 GiB while its RSS is sampled. */
async function streamThrough(start: () => Promise<{ child: ChildProcess; heapdump: string }>): Promise<StreamMemory> {
  const { child, heapdump } = await start();
  try {
    await measureStreamMemory(`${heapdump}?bytes=${16 * 2 ** 20}`, child.pid!, 16 * 2 ** 20);
    return await measureStreamMemory(`${heapdump}?bytes=${STREAM_BYTES}`, child.pid!, STREAM_BYTES);
  } finally {
    await stopProcess(child);
  }
}

/**
 * Proxied throughput of one actuator endpoint (a ~4 KB `env`) through the Vigil daemon, against
 * two baselines on the same fake instance in the same run: a minimal undici pass-through proxy
 * and http-proxy; direct-to-instance throughput is printed for reference. Every server is its own
 * process; the load is autocannon with the same connections and duration for each, in rounds
 * with the order reversed between them. Then the daemon's RSS growth while 1 GiB streams through.
 */
export async function run(): Promise<Figure[]> {
  console.log(`proxy: ${machine()}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s each, GET /actuator/${ENDPOINT}`);
  const instance = await startProcess([script('fake-instance')]);
  const started: ChildProcess[] = [instance.child];
  try {
    const vigil = await startProxyDaemon(instance.url);
    started.push(vigil.child);
    const minimal = await startProcess([script('minimal-proxy'), instance.url]);
    started.push(minimal.child);
    const nodeProxy = await startProcess([script('http-proxy-server'), instance.url, 'keep-alive']);
    started.push(nodeProxy.child);
    // For reference only: http-proxy as `createProxyServer({ target })` runs it, a new connection per request.
    const nodeProxyDefault = await startProcess([script('http-proxy-server'), instance.url]);
    started.push(nodeProxyDefault.child);

    const direct: Contender = { name: 'direct', url: `${instance.url}/actuator/${ENDPOINT}`, pid: instance.child.pid!, runs: [] };
    const minimalProxy: Contender = { name: 'minimal undici proxy', url: `${minimal.url}/actuator/${ENDPOINT}`, pid: minimal.child.pid!, runs: [] };
    const vigilProxy: Contender = { name: 'vigil', url: `${vigil.actuator}/${ENDPOINT}`, pid: vigil.child.pid!, runs: [] };
    const httpProxy: Contender = { name: 'http-proxy', url: `${nodeProxy.url}/actuator/${ENDPOINT}`, pid: nodeProxy.child.pid!, runs: [] };
    const httpProxyDefault: Contender = { name: 'http-proxy without keep-alive', url: `${nodeProxyDefault.url}/actuator/${ENDPOINT}`, pid: nodeProxyDefault.child.pid!, runs: [] };
    const contenders = [minimalProxy, vigilProxy, httpProxy];
    await sameBody([direct.url, httpProxyDefault.url, ...contenders.map((contender) => contender.url)]);
    for (const contender of [direct, httpProxyDefault, ...contenders]) await load(contender.url, WARMUP_S, contender.pid);
    direct.runs.push(await load(direct.url, DURATION_S, direct.pid));
    // Short: a new connection per request leaves sockets in TIME_WAIT, and 10 s of them can exhaust the ephemeral ports.
    httpProxyDefault.runs.push(await load(httpProxyDefault.url, REFERENCE_S, httpProxyDefault.pid));
    // The machine is shared and noisy: each round measures Vigil between its two baselines (the
    // order reversed every round) and the figures are the medians of the per-round ratios.
    const versusMinimal: number[] = [];
    const versusHttpProxy: number[] = [];
    for (let index = 0; index < ROUNDS; index++) {
      const order = index % 2 === 0 ? contenders : [...contenders].reverse();
      for (const contender of order) contender.runs.push(await load(contender.url, DURATION_S, contender.pid));
      const [m, v, h] = contenders.map((contender) => contender.runs[index]!) as [Load, Load, Load];
      versusMinimal.push(v.rps / m.rps);
      versusHttpProxy.push(v.rps / h.rps);
      console.log(`  round ${index + 1}: ${contenders.map((contender) => `${contender.name} ${Math.round(contender.runs[index]!.rps)} req/s (${Math.round(contender.runs[index]!.cpuUs)} µs CPU/req)`).join(', ')}; ` +
        `ratios ${round(v.rps / m.rps)} and ${round(v.rps / h.rps)}`);
    }
    await Promise.all(started.splice(1).map(stopProcess));

    const summary = (contender: Contender) => `${contender.name} ${Math.round(median(contender.runs.map((run) => run.rps)))} req/s, ` +
      `${Math.round(median(contender.runs.map((run) => run.cpuUs)))} µs CPU/req`;
    console.log(`proxy (medians): ${[direct, ...contenders].map(summary).join('; ')}`);
    console.log(`proxy (reference, one run): ${summary(httpProxyDefault)}`);
    const minimalRps = median(minimalProxy.runs.map((run) => run.rps));
    const vigilRps = median(vigilProxy.runs.map((run) => run.rps));
    const nodeProxyRps = median(httpProxy.runs.map((run) => run.rps));

    const vigilMemory = await streamThrough(async () => {
      const daemon = await startProxyDaemon(instance.url);
      return { child: daemon.child, heapdump: `${daemon.actuator}/heapdump` };
    });
    console.log(`proxy: ${describeMemory('vigil', vigilMemory)}`);
    const minimalMemory = await streamThrough(async () => {
      const proxy = await startProcess([script('minimal-proxy'), instance.url]);
      return { child: proxy.child, heapdump: `${proxy.url}/actuator/heapdump` };
    });
    console.log(`proxy: ${describeMemory('minimal undici proxy (reference)', minimalMemory)}`);

    const growthMb = (vigilMemory.peakKb - vigilMemory.beforeKb) / 1024;
    const minimalGrowthMb = (minimalMemory.peakKb - minimalMemory.beforeKb) / 1024;
    return [
      { ...VERSUS_MINIMAL, value: median(versusMinimal), baseline: `minimal undici proxy ${Math.round(minimalRps)} req/s; vigil ${Math.round(vigilRps)} req/s`, ratio: median(versusMinimal) },
      { ...VERSUS_HTTP_PROXY, value: median(versusHttpProxy), baseline: `http-proxy ${Math.round(nodeProxyRps)} req/s; vigil ${Math.round(vigilRps)} req/s`, ratio: median(versusHttpProxy) },
      { ...RSS_GROWTH, value: growthMb, baseline: `minimal undici proxy streaming the same 1 GiB: ${round(minimalGrowthMb)} MB`, ratio: growthMb / minimalGrowthMb },
    ];
  } finally {
    await Promise.all(started.map(stopProcess));
  }
}
