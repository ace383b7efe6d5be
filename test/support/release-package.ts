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
  /** Where temporary folders of the tests that use it go (removed with `cleanUp`). */
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

export function releasePackage(): Promise<ReleasePackage> {
  made ??= pack();
  return made;
}

/** Removes the copy and the tarball (call it from the last test file's `after`; it is harmless twice). */
export async function cleanUpReleasePackage(): Promise<void> {
  const current = made;
  made = undefined;
  if (!current) return;
  const { workDir } = await current.catch(() => ({ workDir: undefined }));
  if (workDir) rmSync(workDir, { recursive: true, force: true });
}

async function pack(): Promise<ReleasePackage> {
  const workDir = mkdtempSync(join(tmpdir(), 'vigil-release-'));
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
    rmSync(workDir, { recursive: true, force: true });
    throw new Error(`npm pack failed (${result.code}):\n${result.stderr}\n${result.stdout}`);
  }
  const [report] = JSON.parse(result.stdout.slice(result.stdout.indexOf('['))) as [{ filename: string; files: { path: string }[] }];
  return { tarball: join(out, report.filename), files: report.files.map((file) => file.path).sort(), packedFrom, workDir };
}

/**
 * Runs a command with npm's own variables removed from the environment: under `npm test` they
 * describe this checkout's package and would steer the npm the command runs.
 */
export function runCommand(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv; input?: string }): Promise<Run> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: { ...env, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => { stdout += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(options.input ?? '');
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
export function startListening(command: string, args: readonly string[], options: { cwd: string; env?: NodeJS.ProcessEnv }): Promise<Listening> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)));
  const child = spawn(command, args, { cwd: options.cwd, env: { ...env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
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
