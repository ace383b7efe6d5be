import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from './paths.js';

export interface Daemon {
  readonly child: ChildProcess;
  /** Base URL from its `listening on` line. */
  readonly url: string;
  readonly port: number;
  /** Every line it printed so far (stdout and stderr). */
  logs(): string[];
  /** Resolves when the process has exited. */
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** The process's peak resident memory so far (Linux `VmHWM`), in bytes; undefined elsewhere. */
  peakRss(): number | undefined;
  /** SIGTERM, then wait for the exit. */
  stop(): Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>;
  /** Sends a signal (SIGKILL, SIGSTOP, SIGCONT...). */
  signal(name: NodeJS.Signals): void;
  /** The config file it runs with (start another daemon with it to restart this one). */
  readonly file: string;
}

/**
 * Runs the real daemon, `bin/vigil.js`, as its own process with `config` written to a file (as
 * JSON, which is YAML too). Resolves once it logged that it is listening.
 */
export function startDaemon(config: Record<string, unknown>, options: { readonly file?: string } = {}): Promise<Daemon> {
  const file = options.file ?? join(tmpdir(), `vigil-test-${process.pid}-${Date.now()}-${Math.random().toString(16).slice(2)}.yaml`);
  if (!options.file) writeFileSync(file, JSON.stringify({ host: '127.0.0.1', port: 0, ...config }, null, 2));
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--config', file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let partial = '';
    const collect = (chunk: Buffer) => {
      const parts = (partial + chunk.toString('utf8')).split('\n');
      partial = parts.pop() ?? '';
      lines.push(...parts);
      const listening = parts.map((line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]).find(Boolean);
      if (!listening) return;
      const url = listening.replace(/["',]+$/, '');
      resolve({
        child,
        url,
        port: Number(new URL(url).port),
        logs: () => [...lines, ...(partial ? [partial] : [])],
        exited,
        peakRss: () => peakRssOf(child.pid),
        stop: async () => {
          if (child.exitCode === null && child.signalCode === null) {
            child.kill('SIGCONT');
            child.kill('SIGTERM');
          }
          return exited;
        },
        signal: (name) => {
          if (child.exitCode === null && child.signalCode === null) child.kill(name);
        },
        file,
      });
    };
    child.stdout!.on('data', collect);
    child.stderr!.on('data', collect);
    void exited.then(({ code }) => reject(new Error(`the daemon exited (${code}) before listening:\n${lines.join('\n')}${partial}`)));
  });
}

function peakRssOf(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb === undefined ? undefined : Number(kb) * 1024;
  } catch {
    return undefined;
  }
}
