import { readFileSync, readdirSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { stopProcess } from '../support.js';
import type { FleetReply, FleetRequest } from './fleet-protocol.js';
import { ask, freePort, registerFleet, startChild, startDaemon, waitForFleet } from './harness.js';
import { memoryOf } from './proc-stats.js';

/**
 * A diagnostic, not a benchmark: the daemon with the default plugins monitoring N fake instances,
 * a heap snapshot taken (SIGUSR2) once the steady state is reached, written to a folder for
 * heap-analyse.js. `node dist/bench/monitoring/heap-profile.js N OUT_DIR`.
 */
const here = dirname(fileURLToPath(import.meta.url));
const instances = Number(process.argv[2] ?? 20_000);
const out = process.argv[3] ?? join(tmpdir(), 'vigil-heap');
const extra = (process.env.HEAP_PROFILE_NODE_OPTIONS ?? '').split(' ').filter(Boolean);
mkdirSync(out, { recursive: true });

const fleet = await startChild(join(here, 'fake-fleet.js'), [String(instances), '4']);
const config = join(tmpdir(), `vigil-heap-profile-${process.pid}.yaml`);
writeFileSync(config, ['host: 127.0.0.1', 'log-level: warn', 'plugins: [rest-api, sse, proxy, monitor, detect-index, detect-probe]', ''].join('\n'));
try {
  const { ports } = await ask<FleetRequest, FleetReply, 'ready'>(fleet, undefined, 'ready');
  const port = await freePort();
  const daemon = await startDaemon(config, port, ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${out}`, ...extra]);
  try {
    const started = Date.now();
    await registerFleet(`http://127.0.0.1:${port}`, ports, instances);
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
  await stopProcess(fleet);
  rmSync(config, { force: true });
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
