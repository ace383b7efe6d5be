import { spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, relative } from 'node:path';
import { repoRoot } from './paths.js';

/**
 * The release tarball as `npm pack` makes it, made once per test process (the package and systemd
 * tests share it). The pack runs in a copy of the repository, because its `prepack` rebuilds
 * `dist/` for the release, and the tests run from this checkout's `dist/`.
 */
export interface ReleasePackage {
  /** The .tgz file. */
  readonly tarball: string;
  /** Every path in it, relative to its `package/` folder, as `npm pack --json` lists them. */
  readonly files: readonly string[];
  /** The copy of the repository that was packed, to compare its package.json after the pack. */
  readonly packedFrom: string;
  /** Where temporary folders of the tests that use it go (removed with it). */
  readonly workDir: string;
}

export interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** What is never copied: built, installed or generated, or not the project's. */
const NOT_COPIED = new Set(['node_modules', 'dist', 'coverage', '.git', '.build', 'npm-shrinkwrap.json']);

let made: Promise<ReleasePackage> | undefined;

/** Packs on the first call; the folder is removed when the test process exits. */
export function releasePackage(): Promise<ReleasePackage> {
  made ??= pack();
  return made;
}

async function pack(): Promise<ReleasePackage> {
  const workDir = mkdtempSync(join(tmpdir(), 'vigil-release-'));
  process.once('exit', () => rmSync(workDir, { recursive: true, force: true }));
  const packedFrom = join(workDir, 'source');
  cpSync(repoRoot, packedFrom, {
    recursive: true,
    filter: (path) => {
      const rel = relative(repoRoot, path);
      return !NOT_COPIED.has(rel.split('/')[0]!) && !basename(path).endsWith('.tgz');
    },
  });
  // The copy builds with this checkout's devDependencies, as a clone after `npm ci` would.
  symlinkSync(join(repoRoot, 'node_modules'), join(packedFrom, 'node_modules'), 'dir');
  const out = join(workDir, 'out');
  mkdirSync(out);
  const result = await runCommand('npm', ['pack', '--json', '--pack-destination', out], { cwd: packedFrom });
  if (result.code !== 0) {
    throw new Error(`npm pack failed (${result.code}):\n${result.stderr}\n${result.stdout}`);
  }
  const [report] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(out, report.filename), files: report.files.map((file) => file.path).sort(), packedFrom, workDir };
}

export interface ProcessOptions {
  readonly cwd: string;
  /** Added to this process's environment (without npm's variables), or the whole of it with `replaceEnv`. */
  readonly env?: NodeJS.ProcessEnv;
  readonly replaceEnv?: boolean;
  /** Run as this user and group (the caller is root); supplementary groups are dropped. */
  readonly uid?: number;
  readonly gid?: number;
}

function spawnOptions(options: ProcessOptions): { cwd: string; env: NodeJS.ProcessEnv; uid?: number; gid?: number } {
  // Not npm's variables of this run, nor c8's coverage directory: npm itself is no code of ours to cover.
  const inherited = options.replaceEnv ? {} : Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== 'NODE_V8_COVERAGE'));
  return {
    cwd: options.cwd,
    env: { ...inherited, ...options.env },
    ...(options.uid !== undefined ? { uid: options.uid } : {}),
    ...(options.gid !== undefined ? { gid: options.gid } : {}),
  };
}

/**
 * Runs a command with npm's own variables removed from the environment: under `npm test` they
 * describe this checkout's package and would steer the npm the command runs.
 */
export function runCommand(command: string, args: readonly string[], options: ProcessOptions): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...spawnOptions(options), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', (error) => reject(new Error(`${command} ${args.join(' ')}: ${error.message}`)));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The package.json of this checkout, as text. */
export function checkoutManifest(): string {
  return readFileSync(join(repoRoot, 'package.json'), 'utf8');
}

export interface Listening {
  /** Base URL from the `listening on` line. */
  readonly url: string;
  /** Everything it printed so far. */
  output(): string;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** Starts a daemon command and resolves once it logs `listening on <url>`; rejects if it exits first. */
export function startListening(command: string, args: readonly string[], options: ProcessOptions): Promise<Listening> {
  const child = spawn(command, args, { ...spawnOptions(options), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const collect = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const url = /listening on (http:\/\/[^\s"',]+)/.exec(output)?.[1];
      if (!url) return;
      child.stdout.off('data', collect);
      child.stderr.off('data', collect);
      child.stdout.on('data', (more: Buffer) => { output += more.toString('utf8'); });
      child.stderr.on('data', (more: Buffer) => { output += more.toString('utf8'); });
      resolve({
        url,
        output: () => output,
        stop: () => {
          if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
          return exited;
        },
      });
    };
    child.stdout.on('data', collect);
    child.stderr.on('data', collect);
    child.once('error', reject);
    void exited.then((code) => reject(new Error(`${command} exited (${code}) before listening:\n${output}`)));
  });
}
