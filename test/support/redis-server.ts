import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A real `redis-server` (or `redis-sentinel`) the test started on loopback, in the foreground. */
export interface RedisProcess {
  readonly port: number;
  readonly url: string;
  readonly dir: string;
  readonly pid: number;
  /** SIGTERM (an AOF Redis flushes it) and wait for the exit. */
  stop(): Promise<void>;
  /** Sends a signal: SIGKILL, SIGSTOP (a hung Redis), SIGCONT. */
  signal(name: NodeJS.Signals): void;
  /** Starts it again on the same port and data folder (an empty one with `{ empty: true }`). */
  restart(options?: { empty?: boolean }): Promise<RedisProcess>;
}

export interface RedisOptions {
  /** Persist with AOF (`appendfsync always`, so a test's stop loses nothing). */
  readonly persistent?: boolean;
  readonly port?: number;
  readonly dir?: string;
  /** Extra arguments, e.g. `['--replicaof', '127.0.0.1', '6379']`. */
  readonly args?: readonly string[];
}

/** A free TCP port on 127.0.0.1 (asked of the kernel, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export async function startRedis(binary: string, options: RedisOptions = {}): Promise<RedisProcess> {
  const port = options.port ?? await freePort();
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'vigil-redis-'));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--dir', dir, '--daemonize', 'no',
    ...(options.persistent ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']), ...(options.args ?? [])];
  const child = await run(binary, args, /Ready to accept connections/);
  return handle(child, binary, port, dir, options);
}

/** A Sentinel watching the master at `masterPort` as `name`, deciding alone (quorum 1) and fast. */
export async function startSentinel(binary: string, masterPort: number, name: string): Promise<RedisProcess> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'vigil-sentinel-'));
  const conf = join(dir, 'sentinel.conf');
  writeFileSync(conf, [
    `port ${port}`, 'bind 127.0.0.1', `dir ${dir}`,
    `sentinel monitor ${name} 127.0.0.1 ${masterPort} 1`,
    `sentinel down-after-milliseconds ${name} 1000`,
    `sentinel failover-timeout ${name} 5000`,
    `sentinel parallel-syncs ${name} 1`,
  ].join('\n'));
  const child = await run(binary, [conf, '--sentinel'], /Sentinel ID is|monitor master/);
  return handle(child, binary, port, dir, {});
}

function handle(child: ChildProcess, binary: string, port: number, dir: string, options: RedisOptions): RedisProcess {
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    dir,
    pid: child.pid!,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGCONT');
        child.kill('SIGTERM');
      }
      await exited;
    },
    signal: (name) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(name);
    },
    restart: async ({ empty = false } = {}) => {
      if (empty) {
        rmSync(dir, { recursive: true, force: true });
        return startRedis(binary, { ...options, port });
      }
      return startRedis(binary, { ...options, port, dir });
    },
  };
}

function run(binary: string, args: readonly string[], ready: RegExp): Promise<ChildProcess> {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${binary} did not start within 10 s:\n${output}`));
    }, 10_000);
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      if (ready.test(output)) {
        clearTimeout(timer);
        child.stdout!.removeAllListeners('data');
        child.stdout!.resume();
        child.stderr!.resume();
        resolve(child);
      }
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${binary} exited (${code}) before it was ready:\n${output}`));
    });
  });
}
