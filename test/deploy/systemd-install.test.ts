import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import * as assert from 'uvu/assert';
import { call } from '../support/http.js';
import { docSteps, wordsOf } from '../support/doc-steps.js';
import { checkoutManifest, releasePackage, runCommand, startListening } from '../support/release-package.js';
import { requireBinary, requireRoot } from '../support/require-binary.js';

/**
 * Issue 29, item 2: the "Running under systemd" steps of docs/operating.md, run as written on the release package
 * in a temporary root: its paths (/opt/vigil, /etc/vigil, /etc/systemd/system) are moved under a
 * temporary folder, and the `vigil` user is a temporary system user, removed afterwards. Then the
 * unit those steps installed is started as systemd would start it: its ExecStartPre, ExecStart and
 * ExecStartPost, as its User and Group, in its WorkingDirectory, with its EnvironmentFile, and
 * stopped with its KillSignal. Creating a user and files owned by root needs root, as CI runs.
 */
const test = requireRoot('the systemd install steps create a system user and files owned by root (CI runs as root)',
  requireBinary('systemctl', 'apt-get install systemd', requireBinary('useradd', 'apt-get install passwd').test).test);

const version = (JSON.parse(checkoutManifest()) as { version: string }).version;
const user = `vigil-t${process.pid}`;
let root = '';
let userCreated = false;

test.before(() => {
  root = mkdtempSync(join(tmpdir(), 'vigil-systemd-'));
  // The unprivileged user must be able to walk to /opt/vigil and /etc/vigil inside it.
  chmodSync(root, 0o755);
  // What a host with systemd has before the steps begin.
  mkdirSync(join(root, 'etc', 'systemd', 'system'), { recursive: true, mode: 0o755 });
});

function removeUser(): void {
  if (userCreated) spawnSync('userdel', [user], { encoding: 'utf8' });
  userCreated = false;
}
// Also when the run ends without reaching `after` (a crash, an interrupt): no user is left behind.
process.once('exit', removeUser);

test.after(() => {
  removeUser();
  if (root) rmSync(root, { recursive: true, force: true });
});

/** A path of the documented steps or of the unit, moved into the temporary root. */
const MOVED = ['/opt/vigil', '/etc/vigil', '/etc/systemd/system'];
/** Absolute paths a step may name as they are: they are only read or only named. */
const AS_IS = new Set(['/dev/null', '/nonexistent', '/usr/sbin/nologin']);

function translate(word: string, tarball: string): string {
  const moved = MOVED.find((path) => word === path || word.startsWith(`${path}/`));
  if (moved) return `${root}${word}`;
  if (word === 'vigil') return user;
  const release = /^vigil-(.+)\.tgz$/.exec(word);
  if (release) {
    assert.is(release[1], version, 'the steps install the package of this version');
    return tarball;
  }
  if (word.startsWith('/') && !AS_IS.has(word)) throw new Error(`a documented step names ${word}, which this test does not know how to keep inside its temporary root`);
  return word;
}

function idsOf(name: string): { uid: number; gid: number } {
  const uid = spawnSync('id', ['-u', name], { encoding: 'utf8' });
  const gid = spawnSync('id', ['-g', name], { encoding: 'utf8' });
  assert.is(uid.status, 0, uid.stderr);
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '0.0.0.0', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** `Key=value` settings of a unit's [Service] section, each key with every value it was given. */
function serviceSettings(unit: string): Map<string, string[]> {
  const section = unit.split(/^\[/m).find((part) => part.startsWith('Service]'))!;
  const settings = new Map<string, string[]>();
  for (const line of section.split('\n').slice(1)) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line.trim());
    if (match) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
}

/** An EnvironmentFile as systemd reads it: `NAME=value` lines, `#` comments. */
function environmentFile(path: string): Record<string, string> {
  const entries = readFileSync(path, 'utf8').split('\n').map((line) => line.trim()).filter((line) => line && !line.startsWith('#'));
  return Object.fromEntries(entries.map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]));
}

test('the "Running under systemd" steps of docs/operating.md install the release package: a vigil user, /opt/vigil read-only to it, /etc/vigil 0750 root:vigil, vigil.env 0600, the unit enabled, and it starts ready', async () => {
  const { tarball } = await releasePackage();
  const steps = docSteps('docs/operating.md', 'systemd-install').map(wordsOf);
  const path = `${dirname(process.execPath)}:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin`;
  let enabled = false;
  for (const step of steps) {
    assert.is(step[0], 'sudo', `every step runs as root: ${step.join(' ')}`);
    const [command, ...args] = step.slice(1);
    if (command === 'systemctl') {
      // No service manager runs here: the unit is enabled inside the root, and started below as systemd starts it.
      if (args.join(' ') === 'daemon-reload') continue;
      assert.equal(args, ['enable', '--now', 'vigil'], 'the one other systemctl step');
      const enable = await runCommand('systemctl', [`--root=${root}`, 'enable', 'vigil.service'], { cwd: root, env: { PATH: path } });
      assert.is(enable.code, 0, enable.stderr);
      enabled = true;
      continue;
    }
    const run = await runCommand(command!, args.map((word) => translate(word, tarball)), { cwd: root, env: { PATH: path } });
    if (command === 'useradd' && run.code === 0) userCreated = true;
    assert.is(run.code, 0, `${step.join(' ')}\n${run.stderr}${run.stdout}`);
    assert.not.match(`${run.stdout}${run.stderr}`, /npm (warn|error)/i, `${step.join(' ')} printed no npm warning`);
  }
  assert.ok(userCreated && enabled, 'the steps created the user and enabled the unit');

  const { uid, gid } = idsOf(user);
  const mode = (file: string) => {
    const stat = statSync(`${root}${file}`);
    return [(stat.mode & 0o7777).toString(8), stat.uid, stat.gid];
  };
  assert.equal(mode('/opt/vigil'), ['755', 0, 0]);
  assert.equal(mode('/opt/vigil/bin/vigil.js'), ['755', 0, 0]);
  assert.equal(mode('/etc/vigil'), ['750', 0, gid]);
  assert.equal(mode('/etc/vigil/registry.config.yaml'), ['640', 0, gid]);
  assert.equal(mode('/etc/vigil/vigil.env'), ['600', 0, 0]);
  assert.equal(mode('/etc/systemd/system/vigil.service'), ['644', 0, 0]);
  const wanted = `${root}/etc/systemd/system/multi-user.target.wants/vigil.service`;
  assert.ok(lstatSync(wanted).isSymbolicLink());
  assert.is(readlinkSync(wanted), '/etc/systemd/system/vigil.service');

  // The unit as systemd runs it, its paths moved into the root and its port a free one.
  const unit = serviceSettings(readFileSync(`${root}/etc/systemd/system/vigil.service`, 'utf8'));
  assert.equal([unit.get('Type'), unit.get('User'), unit.get('Group'), unit.get('KillSignal')], [['exec'], ['vigil'], ['vigil'], ['SIGTERM']]);
  const port = String(await freePort());
  const node = existsSync('/usr/bin/node') ? '/usr/bin/node' : process.execPath;
  const commandOf = (line: string) => line.split(/\s+/).map((word) => {
    if (word === '/usr/bin/node') return node;
    return translate(word, tarball).replace(/^8080$/, port).replace('http://127.0.0.1:8080/', `http://127.0.0.1:${port}/`);
  });
  const [pre] = unit.get('ExecStartPre')!.map(commandOf);
  const [start] = unit.get('ExecStart')!.map(commandOf);
  const [post] = unit.get('ExecStartPost')!.map(commandOf);
  const cwd = translate(unit.get('WorkingDirectory')![0]!, tarball);
  const envFile = unit.get('EnvironmentFile')![0]!.replace(/^-/, '');
  writeFileSync(translate(envFile, tarball), 'VIGIL_EXAMPLE_SECRET=only-systemd-reads-this\n');
  // What systemd gives a service: a plain PATH, the user's names, its Environment= lines and the EnvironmentFile (read as root).
  const assignments = (unit.get('Environment') ?? []).flatMap((line) => line.split(/\s+/)).map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]);
  assert.equal(assignments, [['MALLOC_ARENA_MAX', '2']]);
  const env = { PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin', HOME: '/nonexistent', USER: user, LOGNAME: user, ...Object.fromEntries(assignments), ...environmentFile(translate(envFile, tarball)) };
  const asService = { cwd, env, replaceEnv: true, uid, gid } as const;

  const check = await runCommand(pre![0]!, pre!.slice(1), asService);
  assert.is(check.code, 0, check.stderr);
  assert.match(check.stdout, `config OK: ${root}/etc/vigil/registry.config.yaml`);
  const daemon = await startListening(start![0]!, start!.slice(1), asService);
  try {
    const ready = await runCommand(post![0]!, post!.slice(1), asService);
    assert.is(ready.code, 0, `${ready.stderr}${ready.stdout}`);
    const readiness = await call('GET', `http://127.0.0.1:${port}/health/readiness`);
    assert.is(readiness.status, 200, readiness.text);
    // What the user may not do: write where it is installed, read the secrets file.
    const write = await runCommand('touch', [`${root}/opt/vigil/written-by-vigil`], asService);
    assert.is.not(write.code, 0, 'vigil cannot write to /opt/vigil');
    const secrets = await runCommand('cat', [`${root}/etc/vigil/vigil.env`], asService);
    assert.is.not(secrets.code, 0, 'vigil cannot read vigil.env');
  } finally {
    assert.is(await daemon.stop(), 0, daemon.output());
  }
  assert.not.ok(existsSync(`${root}/opt/vigil/written-by-vigil`));
});

test.run();
