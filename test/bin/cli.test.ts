import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { builtinPlugins } from '../../bin/builtin-plugins.js';
import { parseCli } from '../../bin/cli.js';
import { call } from '../support/http.js';
import { repoRoot } from '../support/paths.js';

const bin = join(repoRoot, 'bin', 'vigil.js');

interface Run {
  readonly code: number | null;
  readonly output: string;
}

/** Runs the CLI; with `untilListening`, waits for the listening line, then calls `whileRunning`, then sends `signal`. */
function run(args: string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; whileRunning?: (url: string) => Promise<void>; signal?: NodeJS.Signals } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: options.cwd ?? repoRoot, env: { ...process.env, ...options.env } });
    let output = '';
    let signalled = false;
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
      if (match && !signalled && options.whileRunning) {
        signalled = true;
        options.whileRunning(match[1]!).then(
          () => child.kill(options.signal ?? 'SIGTERM'),
          (error: unknown) => {
            child.kill('SIGKILL');
            reject(error);
          },
        );
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

function tempConfig(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-cli-'));
  const file = join(dir, 'registry.config.yaml');
  writeFileSync(file, text);
  return file;
}

test('--help lists every flag with its default; --version prints the version', async () => {
  const help = await run(['--help']);
  assert.is(help.code, 0);
  for (const flag of ['--config', '--port', '--host', '--context-path', '--log-level', '--log-format', '--check-config', '--help', '--version']) {
    assert.ok(help.output.includes(flag), `--help mentions ${flag}`);
  }
  assert.ok(help.output.includes('default: 8080'));
  const version = await run(['--version']);
  assert.equal([version.code, version.output.trim()], [0, '0.1.0']);
});

test('hash-password reads stdin and prints a scrypt hash', async () => {
  const result = await new Promise<Run>((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'hash-password'], { cwd: repoRoot });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end('correct horse\n');
  });
  assert.is(result.code, 0);
  assert.match(result.output.trim(), /^scrypt\$/);
  assert.not.match(result.output, 'correct horse');
  const extra = await run(['hash-password', 'x']);
  assert.equal([extra.code, extra.output], [1, 'vigil: hash-password takes no arguments; it reads the password from stdin\n']);
});

test('plugins bring their own CLI commands: the built-in map names each one, so the CLI loads only the plugin that has it', async () => {
  for (const [name, builtin] of Object.entries(builtinPlugins)) {
    const plugin = await builtin.load();
    assert.equal(Object.keys(plugin.commands ?? {}), [...(builtin.commands ?? [])], `commands of ${name}`);
  }
  assert.equal(builtinPlugins['basic-auth']!.commands, ['hash-password']);
  assert.equal(parseCli(['hash-password']), { ok: true, options: { command: 'plugin', name: 'hash-password', args: [], checkConfig: false, overrides: {} } });
});

test('bad flags: one line per problem, exit 1, nothing listens', async () => {
  const result = await run(['--port', 'eighty', '--log-level', 'loud', '--log-format', 'xml', '--host', ' ']);
  assert.is(result.code, 1);
  const lines = result.output.trim().split('\n');
  assert.equal(lines, [
    'vigil: --port: must be an integer from 0 to 65535, got "eighty"',
    'vigil: --host: must not be empty',
    'vigil: --log-level: must be one of error, warn, info, debug, got "loud"',
    'vigil: --log-format: must be one of text, json, got "xml"',
  ]);
  const unknown = await run(['--bogus']);
  assert.is(unknown.code, 1);
  assert.match(unknown.output, "Unknown option '--bogus'");
  assert.equal(parseCli(['--config', ' ']), { ok: false, problems: ['--config: must name a file'] });
});

test('--check-config: 0 for a valid file, 1 with each problem for an invalid one', async () => {
  const good = await run(['--check-config', '--config', tempConfig('port: 0\nplugins: [rest-api]\n')]);
  assert.is(good.code, 0, good.output);
  assert.match(good.output, 'config OK');
  const bad = await run(['--check-config', '--config', tempConfig('port: 0\nplugins: [rest-api, no-such-plugin-kit]\nkit-unknown: 1\n')]);
  assert.is(bad.code, 1);
  assert.match(bad.output, 'no-such-plugin-kit');
  assert.match(bad.output, 'kit-unknown: unknown key');
  const missing = await run(['--check-config', '--config', '/nonexistent/vigil.yaml']);
  assert.is(missing.code, 1);
  assert.match(missing.output, 'file not found');
});

test('runs with flags over the file, serves, and stops on SIGTERM with exit 0', async () => {
  const config = tempConfig('port: 1\nhost: 127.0.0.1\nplugins: [rest-api]\ncontext-path: /ignored\n');
  const result = await run(['--config', config, '--port', '0', '--context-path', '/admin', '--log-format', 'json'], {
    whileRunning: async (url) => {
      assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/admin$/);
      const res = await call('GET', `${url}/instances`);
      assert.equal([res.status, res.json], [200, []]);
    },
  });
  assert.is(result.code, 0, result.output);
  const lines = result.output.trim().split('\n').map((line) => JSON.parse(line) as { level: string; message: string });
  assert.ok(lines.some((line) => line.message.startsWith('listening on http://127.0.0.1:')));
  assert.equal(lines.at(-1)!.message, 'stopped');
});

test('SIGINT stops cleanly too; a start-up failure exits 1', async () => {
  const config = tempConfig('port: 0\nhost: 127.0.0.1\nplugins: [rest-api]\n');
  const stopped = await run(['--config', config], { whileRunning: async () => undefined, signal: 'SIGINT' });
  assert.is(stopped.code, 0, stopped.output);
  assert.match(stopped.output, 'SIGINT received, stopping');
  const failing = await run(['--config', tempConfig('port: 0\nhost: 203.0.113.1\nplugins: [rest-api]\n')]);
  assert.is(failing.code, 1);
  assert.match(failing.output, 'start-up failed');
});

test.run();
