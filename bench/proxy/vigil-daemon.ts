import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { DAEMON_NODE_FLAGS, root, startProcess } from '../support.js';

export interface ProxyDaemon {
  readonly child: ChildProcess;
  readonly url: string;
  /** `/instances/{id}/actuator` of the registered instance. */
  readonly actuator: string;
}

const DETECTION_WAIT_MS = 15_000;

/**
 * Starts the Vigil daemon the way a user runs it (bin/vigil.js, its own process) with the plugins
 * a proxy deployment has, registers `instance` over HTTP and waits until the monitor detected its
 * endpoints, so every proxied request goes the ordinary way. `BENCH_CPU_PROF=DIR` writes a CPU
 * profile of the daemon to DIR when it exits.
 */
export async function startProxyDaemon(instance: string): Promise<ProxyDaemon> {
  const config = join(tmpdir(), `vigil-bench-proxy-${process.pid}.yaml`);
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nplugins: [rest-api, proxy, monitor, detect-index]\n');
  const profile = process.env.BENCH_CPU_PROF;
  const nodeFlags = profile ? ['--cpu-prof', `--cpu-prof-dir=${profile}`] : [];
  const { child, url } = await startProcess([...nodeFlags, ...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
  const registered = await fetch(`${url}/instances`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', healthUrl: `${instance}/actuator/health`, managementUrl: `${instance}/actuator` }),
  });
  if (registered.status !== 201) throw new Error(`registration failed: ${registered.status}`);
  const { id } = (await registered.json()) as { id: string };
  await waitForEndpoints(url, id, ['env', 'heapdump']);
  return { child, url, actuator: `${url}/instances/${id}/actuator` };
}

/** Polls the instance until `wanted` are detected; a benchmark may poll, a test may not. */
async function waitForEndpoints(url: string, id: string, wanted: readonly string[]): Promise<void> {
  const until = Date.now() + DETECTION_WAIT_MS;
  while (Date.now() < until) {
    const res = await fetch(`${url}/instances/${id}`, { headers: { accept: 'application/json' } });
    const { endpoints } = (await res.json()) as { endpoints: { id: string }[] };
    if (wanted.every((want) => endpoints.some((endpoint) => endpoint.id === want))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`endpoints ${wanted.join(', ')} of ${id} were not detected within ${DETECTION_WAIT_MS} ms`);
}
