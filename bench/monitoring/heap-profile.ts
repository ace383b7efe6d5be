import { readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { startRedis, type RedisProcess } from '../../test/support/redis-server.js';
import { findBinary } from '../../test/support/binaries.js';
import { stopProcess } from '../support.js';
import type { FleetReply, FleetRequest } from './fleet-protocol.js';
import { ask, freePort, registerFleet, startChild, startDaemon, waitForFleet } from './harness.js';
import { memoryOf } from './proc-stats.js';

/**
 * A diagnostic, not a benchmark: the daemon with the default plugins monitoring N fake instances,
 * a heap snapshot taken (SIGUSR2) once the steady state is reached, written to a folder for
 * heap-analyse.js. `node dist/bench/monitoring/heap-profile.js N OUT_DIR`. With
 * HEAP_PROFILE_CLUSTER_NODES=K, K nodes share one Redis (cluster-redis) and the first one's heap
 * is taken: what a node holds of its share; HEAP_PROFILE_STATUS_INTERVAL_MS slows the checks so a
 * loaded machine carries the fleet (memory does not depend on the rate).
 */
const here = dirname(fileURLToPath(import.meta.url));
const instances = Number(process.argv[2] ?? 20_000);
const out = process.argv[3] ?? join(tmpdir(), 'vigil-heap');
const extra = (process.env.HEAP_PROFILE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
const clusterNodes = Number(process.env.HEAP_PROFILE_CLUSTER_NODES ?? 0);
const statusIntervalMs = Number(process.env.HEAP_PROFILE_STATUS_INTERVAL_MS ?? 0);
mkdirSync(out, { recursive: true });

const fleet = await startChild(join(here, 'fake-fleet.js'), [String(instances), '4']);
let redis: RedisProcess | undefined;
if (clusterNodes > 0) {
  const binary = findBinary('redis-server', 'apt-get install redis-server').path;
  if (!binary) throw new Error('redis-server is not installed (apt-get install redis-server)');
  redis = await startRedis(binary);
}
const configs = Array.from({ length: Math.max(1, clusterNodes) }, (_, n) => {
  const file = join(tmpdir(), `vigil-heap-profile-${process.pid}-n${n + 1}.yaml`);
  writeFileSync(file, ['host: 127.0.0.1', 'log-level: warn',
    `plugins: [rest-api, sse, proxy, monitor, detect-index, detect-probe${redis ? ', cluster-redis' : ''}]`,
    ...(statusIntervalMs > 0 ? [`monitor: { status-interval: ${statusIntervalMs}ms }`] : []),
    ...(redis ? [`cluster-redis: { url: "${redis.url}", node-id: n${n + 1} }`] : []), ''].join('\n'));
  return file;
});
const others: ChildProcess[] = [];
try {
  const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
  const port = await freePort();
  const daemon = await startDaemon(configs[0]!, port, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${out}`, ...extra]);
  const urls = [`http://127.0.0.1:${port}`];
  for (const config of configs.slice(1)) {
    const otherPort = await freePort();
    others.push(await startDaemon(config, otherPort));
    urls.push(`http://127.0.0.1:${otherPort}`);
  }
  // The nodes see each other before the first registration, so each holds only its share.
  if (redis) await sleep(4000);
  try {
    const started = Date.now();
    const retries = await registerFleet(urls, ports, instances);
    if (retries > 0) console.log(`registration retried ${retries} time(s) after a 503`);
    console.log(`registered in ${(Date.now() - started) / 1000} s; ${JSON.stringify(memoryOf(daemon.pid!))}`);
    await waitForFleet(fleet, instances);
    console.log(`all seen after ${(Date.now() - started) / 1000} s; ${JSON.stringify(memoryOf(daemon.pid!))}`);
    for (let i = 0; i < 6; i += 1) {
      await sleep(5000);
      console.log(`+${(Date.now() - started) / 1000} s ${JSON.stringify(memoryOf(daemon.pid!))}`);
    }
    console.log(`resident memory by mapping (MB): ${residentByMapping(daemon.pid!)}`);
    daemon.kill('SIGUSR2');
    // The snapshot is written synchronously by the daemon; wait until its size settles.
    let last = -1;
    for (;;) {
      await sleep(2000);
      const files = readdirSync(out).filter((f) => f.endsWith('.heapsnapshot'));
      const size = files.reduce((sum, f) => sum + statSync(join(out, f)).size, 0);
      if (size > 0 && size === last) break;
      last = size;
    }
    console.log(`snapshot in ${out}; ${JSON.stringify(memoryOf(daemon.pid!))}`);
  } finally {
    await stopProcess(daemon);
  }
} finally {
  await Promise.all(others.map(stopProcess));
  await stopProcess(fleet);
  await redis?.stop();
  for (const config of configs) rmSync(config, { force: true });
}

/** Resident MB per kind of mapping from /proc/<pid>/smaps: malloc's heap, anonymous (V8's heap among them), files. */
function residentByMapping(pid: number): string {
  const sums = new Map<string, number>();
  let current = 'anon';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const header = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (header) current = header[1] === '' ? 'anon' : header[1]!.startsWith('/') ? 'files' : header[1]!;
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) sums.set(current, (sums.get(current) ?? 0) + Number(rss[1]) / 1000);
  }
  return [...sums].sort((a, b) => b[1] - a[1]).map(([name, mb]) => `${name} ${mb.toFixed(1)}`).join(', ');
}
