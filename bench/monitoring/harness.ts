import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { appendFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Agent, request } from 'undici';
import { DAEMON_ENV, DAEMON_NODE_FLAGS, root, stopProcess } from '../support.js';
import type { FleetReply, FleetRequest } from './fleet-protocol.js';

/**
 * What the fleet benchmarks share (bench/monitoring, bench/cluster, bench/cluster-scale): the
 * fake fleet and poller child processes and their IPC, registering a fleet, waiting for it, and a
 * daemon on a chosen port.
 */

const REGISTRATION_CONCURRENCY = 32;
const APPLICATIONS = 100;

/** How often one registration is tried again after a 503 before the run gives up on it. */
const REGISTRATION_RETRIES = 10;
/** The wait after a 503 that names no `Retry-After`. */
const DEFAULT_RETRY_AFTER_MS = 1000;

/**
 * POST /instances for the whole fleet, a bounded number at a time. A 503 with `Retry-After` (a
 * node that cannot reach Redis for a moment) is tried again after that wait, as a real client
 * does: the run fails only when one registration keeps being refused. Resolves with how many
 * retries it took, for the run's output.
 */
export async function registerFleet(urls: string | readonly string[], ports: number[], instances: number, from = 0): Promise<number> {
  const targets = typeof urls === 'string' ? [urls] : urls;
  const agent = new Agent({ connections: REGISTRATION_CONCURRENCY });
  let next = 0;
  let retries = 0;
  const worker = async () => {
    for (let n = from + next++; n < instances; n = from + next++) {
      const base = `http://127.0.0.1:${ports[n % ports.length]}/i/${n}`;
      const body = JSON.stringify({
        name: `fleet-${n % APPLICATIONS}`,
        healthUrl: `${base}/actuator/health`,
        managementUrl: `${base}/actuator`,
        serviceUrl: `${base}/`,
        metadata: { 'tags.fleet': 'bench', startup: '2026-01-01T00:00:00Z' },
      });
      for (let attempt = 0; ; attempt += 1) {
        const res = await request(`${targets[n % targets.length]}/instances`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body });
        await res.body.dump();
        if (res.statusCode === 201) break;
        if (res.statusCode !== 503 || attempt >= REGISTRATION_RETRIES) throw new Error(`registration ${n} failed: ${res.statusCode}${attempt > 0 ? ` after ${attempt} retries` : ''}`);
        retries += 1;
        await sleep(retryAfterMs(res.headers['retry-after']));
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: REGISTRATION_CONCURRENCY }, worker));
  } finally {
    await agent.close();
  }
  return retries;
}

/** A `Retry-After` in seconds (the form Vigil sends) as milliseconds; a default when absent or unreadable. */
function retryAfterMs(header: string | string[] | undefined): number {
  const seconds = Number(Array.isArray(header) ? header[0] : header);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds * 1000 : DEFAULT_RETRY_AFTER_MS;
}

/** Until every instance's info was requested: it was UP, its endpoints were detected, its info read. */
export async function waitForFleet(fleet: ChildProcess, instances: number): Promise<void> {
  const deadline = Date.now() + 10 * 60_000;
  for (;;) {
    const { infoSeen } = await ask<FleetRequest, FleetReply, 'progress'>(fleet, { type: 'progress' }, 'progress');
    if (infoSeen >= instances) return;
    if (Date.now() > deadline) throw new Error(`only ${infoSeen} of ${instances} instances reached their info endpoint in 10 min`);
    await sleep(500);
  }
}

/** Black-box check through the REST API: how many registered instances are UP. */
export async function countUp(url: string): Promise<number> {
  const res = await request(`${url}/applications`, { headers: { accept: 'application/json' } });
  const applications = (await res.body.json()) as { instances: { statusInfo: { status: string } }[] }[];
  return applications.reduce((sum, app) => sum + app.instances.filter((i) => i.statusInfo.status === 'UP').length, 0);
}

/** The daemon, on a port chosen here (at log-level warn it logs no "listening" line), once it answers. */
export async function startDaemon(config: string, port: number, nodeOptions: readonly string[] = []): Promise<ChildProcess> {
  const args = [...nodeOptions, ...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--port', String(port)];
  const child = spawn(process.execPath, args, { cwd: root, env: { ...process.env, ...DAEMON_ENV }, stdio: ['ignore', 'pipe', 'pipe'] });
  // With diagnostic flags the output may be large (--trace-gc): it goes to a file instead.
  const logFile = nodeOptions.length > 0 ? join(tmpdir(), `vigil-bench-daemon-${process.pid}-${port}.log`) : undefined;
  if (logFile) console.log(`  daemon: node ${nodeOptions.join(' ')}; output in ${logFile}`);
  let output = '';
  const keep = (chunk: Buffer) => {
    if (logFile) appendFileSync(logFile, chunk);
    else if (output.length < 1_000_000) output += chunk.toString('utf8');
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the daemon exited (${child.exitCode}):\n${output}`);
    try {
      const res = await request(`http://127.0.0.1:${port}/applications`);
      await res.body.dump();
      if (res.statusCode === 200) return child;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) {
      await stopProcess(child);
      throw new Error(`the daemon did not answer within 20 s:\n${output}`);
    }
    await sleep(100);
  }
}

export function startChild(script: string, args: string[]): Promise<ChildProcess> {
  const child = spawn(process.execPath, [script, ...args], { cwd: root, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('spawn', () => resolve(child));
    child.once('error', reject);
  });
}

/** Sends `message` (if any) and resolves with the next reply of type `type`. */
export function ask<Req, Reply extends { type: string }, T extends Reply['type']>(child: ChildProcess, message: Req | undefined, type: T): Promise<Extract<Reply, { type: T }>> {
  return new Promise((resolve, reject) => {
    const onMessage = (reply: Reply) => {
      if (reply.type !== type) return;
      cleanup();
      resolve(reply as Extract<Reply, { type: T }>);
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`child process exited (${code}) while waiting for "${type}"`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    if (message !== undefined) child.send(message as object);
  });
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

