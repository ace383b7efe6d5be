import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (bench files are compiled to dist/bench/...). */
export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The environment and node flags `npm start` sets (package.json's `start` script,
 * `[NAME=value ...] node [flags] bin/vigil.js`): benchmarks run the daemon as it is started, not
 * as a bare `node bin/vigil.js`. `startProcess` and the monitoring harness put DAEMON_ENV in
 * every process they start, baselines too: both sides run on the same allocator settings.
 */
const START = (() => {
  const start = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;
  const match = /^((?:[A-Z_][A-Z0-9_]*=\S+ )*)node ((?:--\S+ )*)bin\/vigil\.js$/.exec(start);
  if (!match) throw new Error(`package.json's start script is not "[NAME=value ...] node [flags] bin/vigil.js": ${start}`);
  const words = (text: string) => text.split(' ').filter((word) => word !== '');
  const env = Object.fromEntries(words(match[1]!).map((assignment) => [assignment.slice(0, assignment.indexOf('=')), assignment.slice(assignment.indexOf('=') + 1)]));
  return { env: Object.freeze(env) as Readonly<Record<string, string>>, flags: Object.freeze(words(match[2]!)) };
})();
export const DAEMON_NODE_FLAGS: readonly string[] = START.flags;
export const DAEMON_ENV: Readonly<Record<string, string>> = START.env;

/** A figure a benchmark promises to report: declared up front, so a benchmark that fails still names it. */
export interface FigureSpec {
  readonly name: string;
  readonly target: number;
  /** `min`: value must be at least target; `max`: at most. */
  readonly kind: 'min' | 'max';
  readonly unit?: string;
}

export interface Figure extends FigureSpec {
  /** NaN when the figure could not be measured (`failure` says why). */
  readonly value: number;
  /** What the baseline measured in the same run did, in words and numbers. */
  readonly baseline?: string;
  /** Vigil's result over the baseline's in the same run (for a figure that is itself a ratio, the value). */
  readonly ratio?: number;
  /** Why the figure was not measured: the benchmark failed, or could not run here. */
  readonly failure?: string;
  /**
   * The figure's part was not asked for in this run (an environment variable chose another): no
   * RESULT line, its row in the report stays as it was, and the run does not fail for it.
   */
  readonly notRun?: true;
}

/** What `bench/NAME/index.ts` exports. */
export interface Benchmark {
  readonly figures: readonly FigureSpec[];
  /**
   * Measures every figure. A benchmark of several parts hands each part's figures to `measured`
   * as soon as it has them: when a later part throws, those stay measured and only the figures
   * not handed over are reported not measured.
   */
  run(measured: (figures: readonly Figure[]) => void): Promise<Figure[]>;
}

export function notMeasured(spec: FigureSpec, reason: string): Figure {
  return { ...spec, value: Number.NaN, failure: reason };
}

/** A figure whose part this run did not ask for (see `Figure.notRun`). */
export function notRun(spec: FigureSpec, reason: string): Figure {
  return { ...spec, value: Number.NaN, failure: reason, notRun: true };
}

export function passes(figure: Figure): boolean {
  return figure.kind === 'min' ? figure.value >= figure.target : figure.value <= figure.target;
}

export function resultLine(figure: Figure): string {
  return `RESULT ${figure.name} value=${round(figure.value)} target=${figure.target} pass=${passes(figure) ? 'yes' : 'no'}`;
}

export function round(value: number): number {
  return Math.round(value * 1000) / 1000;
}

/** The middle value (the mean of the two middle ones for an even count). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function machine(): string {
  return `${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
}

const START_TIMEOUT_MS = 30_000;

/**
 * Starts a child process (node with `args`, unless another `command` is given) and resolves with
 * it and the URL it announces on a `listening on URL` line.
 */
export function startProcess(args: string[], env: NodeJS.ProcessEnv = {}, command: string = process.execPath): Promise<{ child: ChildProcess; url: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: root, env: { ...process.env, ...DAEMON_ENV, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    // A server that never says it listens (a log level above info, say) must fail the run, not hang it.
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no "listening on" line within ${START_TIMEOUT_MS} ms from ${args.join(' ')}:\n${output}`));
    }, START_TIMEOUT_MS);
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        child.stdout!.resume();
        resolve({ child, url: match[1]! });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited (${code}) before listening:\n${output}`));
    });
  });
}

export async function stopProcess(child: ChildProcess): Promise<void> {
  // A process killed by a signal has no exit code, only a signal code: it is gone all the same.
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** A process's resident set size in KiB, from `/proc/<pid>/status` (Linux). */
export function residentKb(pid: number): number {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!match) throw new Error(`no VmRSS for process ${pid}`);
  return Number(match[1]);
}

/** CPU time (user + system) a process has used so far, in milliseconds, from `/proc/<pid>/stat` (Linux). */
export function cpuMs(pid: number): number {
  // utime and stime are the 14th and 15th fields, in clock ticks (100/s); counted after `(comm)`, which may hold spaces.
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
