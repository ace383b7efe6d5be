import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call } from '../support/http.js';
import { docSteps, wordsOf } from '../support/doc-steps.js';
import { checkoutManifest, releasePackage, runCommand, startListening } from '../support/release-package.js';

/**
 * Issue 29, item 1: `npm pack` makes the release package an SRE installs, and installing it into
 * a temporary prefix with `--omit=dev` gives a working `vigil` command with no build, no install
 * script and no warning.
 */
const test = suite('release package');
const manifest = JSON.parse(checkoutManifest()) as { version: string };

/** What the package may hold: the daemon as it runs, its dashboard, and the files an operator reads. */
const ALLOWED = [
  /^package\.json$/, /^README\.md$/, /^docs\/[^/]+\.md$/, /^LICENSE$/, /^CHANGELOG\.md$/, /^npm-shrinkwrap\.json$/,
  /^registry\.config\.yaml$/, /^config\/vigil\.service$/, /^bin\/vigil\.js$/,
  /^dist\/(bin|core|config|plugins)\/.+\.(js|d\.ts)$/,
  /^dist\/ui-app\/index\.html$/, /^dist\/ui-app\/ui\/[^/]+\.(js|css|svg)(\.gz|\.br)?$/,
];
const REQUIRED = ['package.json', 'README.md', 'docs/operating.md', 'docs/configuration.md', 'LICENSE', 'CHANGELOG.md', 'npm-shrinkwrap.json', 'registry.config.yaml',
  'config/vigil.service', 'bin/vigil.js', 'dist/bin/main.js', 'dist/bin/builtin-plugins.js', 'dist/ui-app/index.html'];
/** Scripts npm runs when a package is installed, as a dependency, globally or in its own folder. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

test('npm pack makes vigil-<version>.tgz holding the compiled daemon, the built dashboard, the unit, README and the manual in docs/, LICENSE and CHANGELOG, and nothing else', async () => {
  const { tarball, files } = await releasePackage();
  assert.is(tarball.split('/').pop(), `vigil-${manifest.version}.tgz`);
  const stray = files.filter((file) => !ALLOWED.some((pattern) => pattern.test(file)));
  assert.equal(stray, [], 'no tests, benchmarks, sources, source maps or build scripts');
  assert.equal(REQUIRED.filter((file) => !files.includes(file)), [], 'every file the daemon and its operator need');
  assert.ok(files.some((file) => /^dist\/ui-app\/ui\/app-[^/]+\.js$/.test(file)), 'the bundled dashboard');
});

test('the packed package.json has no script that runs on install; the pack leaves the checkout\'s package.json as it was', async () => {
  const { tarball, packedFrom, workDir } = await releasePackage();
  const unpacked = join(workDir, 'unpacked-manifest');
  mkdirSync(unpacked, { recursive: true });
  const untar = await runCommand('tar', ['-xzf', tarball, '-C', unpacked, 'package/package.json', 'package/npm-shrinkwrap.json'], { cwd: workDir });
  assert.is(untar.code, 0, untar.stderr);
  const packed = JSON.parse(readFileSync(join(unpacked, 'package', 'package.json'), 'utf8')) as { version: string; scripts?: Record<string, string> };
  assert.is(packed.version, manifest.version);
  assert.equal(Object.keys(packed.scripts ?? {}).filter((name) => INSTALL_SCRIPTS.includes(name)), []);
  const shrinkwrap = JSON.parse(readFileSync(join(unpacked, 'package', 'npm-shrinkwrap.json'), 'utf8')) as { packages: Record<string, { version?: string }> };
  assert.is(shrinkwrap.packages['']!.version, manifest.version, 'the shrinkwrap pins the tree the tests ran with');
  assert.is(readFileSync(join(packedFrom, 'package.json'), 'utf8'), checkoutManifest(), 'postpack put the package.json back');
  assert.not.ok(existsSync(join(packedFrom, 'npm-shrinkwrap.json')), 'postpack removed the shrinkwrap it made');
});

/**
 * The install steps of docs/operating.md, for a temporary prefix: `sudo` left out, the tarball the one packed
 * here, and `--prefix` added after `--global` so nothing is installed on this machine.
 */
function installSteps(tarball: string, prefix: string): { pack: string[]; install: string[]; check: string[] } {
  const steps = docSteps('docs/operating.md', 'release-install').map(wordsOf);
  assert.is(steps.length, 3, 'pack, install, check');
  const [pack, install, check] = steps as [string[], string[], string[]];
  assert.equal(pack, ['npm', 'pack'], 'the pack this file made');
  assert.is(install[0], 'sudo');
  assert.is(install.at(-1), `./vigil-${manifest.version}.tgz`, 'the steps name the package of this version');
  const args = install.slice(1, -1);
  assert.ok(args.includes('--global') && args.includes('--omit=dev'), args.join(' '));
  args.splice(args.indexOf('--global') + 1, 0, '--prefix', prefix);
  return { pack, install: [...args, tarball], check };
}

test('installed as "Installing a release" of docs/operating.md says, into a temporary prefix: no warning, no build, `vigil --version`, and the daemon answers /health/readiness', async () => {
  const { tarball, workDir } = await releasePackage();
  const prefix = join(workDir, 'prefix');
  const steps = installSteps(tarball, prefix);
  const path = `${join(prefix, 'bin')}:${dirname(process.execPath)}:${process.env.PATH ?? ''}`;
  const install = await runCommand(steps.install[0]!, steps.install.slice(1), { cwd: workDir, env: { PATH: path } });
  assert.is(install.code, 0, install.stderr);
  assert.equal(`${install.stdout}${install.stderr}`.split('\n').filter((line) => /\b(warn|WARN|error|ERR!)\b/.test(line)), [], 'npm printed no warning');
  const installed = join(prefix, 'lib', 'node_modules', 'vigil');
  assert.ok(existsSync(join(installed, 'node_modules', 'polka')), 'its dependencies');
  assert.not.ok(existsSync(join(installed, 'node_modules', 'typescript')), 'no devDependency');
  assert.not.ok(existsSync(join(installed, 'core')), 'no TypeScript source to build');

  assert.equal(steps.check, ['vigil', '--version']);
  const vigil = join(prefix, 'bin', 'vigil');
  const version = await runCommand(vigil, steps.check.slice(1), { cwd: workDir, env: { PATH: path } });
  assert.equal([version.code, version.stdout, version.stderr], [0, `${manifest.version}\n`, '']);

  const empty = join(workDir, 'run');
  mkdirSync(empty, { recursive: true });
  const daemon = await startListening(vigil, ['--host', '127.0.0.1', '--port', '0'], { cwd: empty, env: { PATH: path } });
  try {
    const readiness = await call('GET', `${daemon.url}/health/readiness`);
    assert.is(readiness.status, 200, readiness.text);
    const page = await call('GET', `${daemon.url}/`, { headers: { accept: 'text/html' } });
    assert.is(page.status, 200);
    assert.match(page.text, '<script type="module"', 'the built dashboard');
  } finally {
    assert.is(await daemon.stop(), 0, daemon.output());
  }
});

test.run();
