import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { call, eventually } from '../support/http.js';
import { repoRoot } from '../support/paths.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** The file a user edits between the two states (JSON is YAML too). */
function config(port: number | string, extra: Record<string, unknown>): string {
  return JSON.stringify({ host: '127.0.0.1', port, plugins: ['rest-api', 'sse', 'cors', 'basic-auth'], ...extra }, null, 2);
}

test('SIGHUP re-reads the file: users, CORS and the log level change without dropping a stream; a bad file changes nothing', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'vigil-reload-'));
  const file = join(folder, 'registry.config.yaml');
  const first = { cors: { 'allowed-origins': 'https://one.example' }, 'basic-auth': { users: [{ username: 'admin', password: 'first-pw' }] } };
  writeFileSync(file, config(0, first));
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--config', file], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: string[] = [];
  let partial = '';
  const collect = (chunk: Buffer) => {
    const parts = (partial + chunk.toString('utf8')).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stream = new AbortController();
  try {
    // The daemon is another process: its log is read as it comes.
    const listening = await eventually(() => lines.map((line) => /listening on (http:\/\/\S+)/.exec(line)?.[1]).find(Boolean), 'listening', 15_000);
    const url = listening.replace(/["',]+$/, '');
    const port = Number(new URL(url).port);
    const opened = await fetch(`${url}/instances/events`, { headers: { accept: 'text/event-stream', authorization: basic('admin', 'first-pw') }, signal: stream.signal });
    assert.is(opened.status, 200);
    const reader = opened.body!.getReader();

    const reloaded = (count: number) => eventually(() => lines.filter((line) => line.includes('config reloaded from') || line.includes('config reload refused (')).length >= count, `reload ${count}`, 10_000);
    writeFileSync(file, config(port + 1, {
      'log-level': 'debug',
      plugins: ['rest-api', 'sse', 'cors', 'basic-auth', 'probes'],
      cors: { 'allowed-origins': 'https://two.example' },
      'basic-auth': { users: [{ username: 'ops', password: 'second-pw' }] },
    }));
    child.kill('SIGHUP');
    await reloaded(1);
    const log = lines.join('\n');
    assert.match(log, /config reloaded from .*registry\.config\.yaml: applied log-level, cors, basic-auth/);
    assert.match(log, /config reload: port changed; it needs a restart and was not applied/);
    assert.match(log, /config reload: plugins \(running: rest-api, sse, cors, basic-auth; in the file: rest-api, sse, cors, basic-auth, probes\) changed; it needs a restart/);

    assert.is((await call('GET', `${url}/applications`, { headers: { authorization: basic('admin', 'first-pw') } })).status, 401);
    const ops = await call('GET', `${url}/applications`, { headers: { authorization: basic('ops', 'second-pw'), origin: 'https://two.example' } });
    assert.is(ops.status, 200);
    assert.is(ops.headers.get('access-control-allow-origin'), 'https://two.example');
    const oldOrigin = await call('GET', `${url}/applications`, { headers: { authorization: basic('ops', 'second-pw'), origin: 'https://one.example' } });
    assert.is(oldOrigin.headers.get('access-control-allow-origin'), null);
    assert.ok(lines.some((line) => / debug .*verified basic credentials of ops/.test(line)), 'debug lines since the reload');
    assert.is((await call('GET', `${url}/health/readiness`, { headers: { authorization: basic('ops', 'second-pw') } })).status, 404, 'the plugin list did not change');

    // The stream opened before the reload still delivers.
    assert.is((await call('POST', `${url}/instances`, { json: { name: 'late', healthUrl: 'http://127.0.0.1:9/health' }, headers: { authorization: basic('ops', 'second-pw') } })).status, 201);
    let text = '';
    while (!text.includes('"REGISTERED"')) {
      const { value, done } = await reader.read();
      assert.not.ok(done, 'the stream ended');
      text += Buffer.from(value!).toString('utf8');
    }

    writeFileSync(file, 'port: [\n');
    child.kill('SIGHUP');
    await reloaded(2);
    writeFileSync(file, config(port, { cors: { 'allowed-origins': 'https://two.example', typo: 1 }, 'basic-auth': { users: [] } }));
    child.kill('SIGHUP');
    await reloaded(3);
    const refused = lines.filter((line) => line.includes('config reload refused'));
    assert.ok(refused.some((line) => /config reload refused: config file .*registry\.config\.yaml/.test(line)), refused.join('\n'));
    assert.ok(refused.some((line) => line.includes('config reload refused: plugin "cors": cors: unknown key(s): typo') || line.includes('typo')), refused.join('\n'));
    assert.ok(refused.some((line) => line.includes('at least one entry in users or tokens is required')), refused.join('\n'));
    assert.ok(refused.some((line) => line.includes('config reload refused (2 problems); the running config stays')), refused.join('\n'));
    assert.is((await call('GET', `${url}/applications`, { headers: { authorization: basic('ops', 'second-pw') } })).status, 200, 'the running config stayed');
    await reader.cancel();
  } finally {
    stream.abort();
    if (child.exitCode === null) child.kill('SIGTERM');
    assert.is(await exited, 0);
    rmSync(folder, { recursive: true, force: true });
  }
});

test.run();
