import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { repoRoot } from '../support/paths.js';
import { docSteps } from '../support/doc-steps.js';

/**
 * Issue 29, item 3: deploy/Dockerfile. No image can be built here (no registry to pull the base
 * from), so this checks what it does against what the other tests run: its second stage installs
 * the release package with the commands of the systemd steps in docs/operating.md, which
 * test/deploy/systemd-install.test.ts runs, as the numeric user the Kubernetes manifests expect.
 */
interface Instruction {
  readonly keyword: string;
  readonly args: string;
}

function instructions(): Instruction[] {
  const text = readFileSync(join(repoRoot, 'deploy', 'Dockerfile'), 'utf8');
  return text.replace(/\\\n/g, ' ').split('\n')
    .filter((line) => line.trim() !== '' && !line.trimStart().startsWith('#'))
    .map((line) => {
      const [keyword, ...rest] = line.trim().split(/\s+/);
      return { keyword: keyword!.toUpperCase(), args: rest.join(' ') };
    });
}

function stages(): Instruction[][] {
  const result: Instruction[][] = [];
  for (const instruction of instructions()) {
    if (instruction.keyword === 'FROM') result.push([]);
    result.at(-1)!.push(instruction);
  }
  return result;
}

test('two stages on a Node 20 slim base: the first packs the release, the second installs it with --omit=dev and builds nothing', () => {
  const [pack, runtime] = stages() as [Instruction[], Instruction[]];
  assert.is(stages().length, 2);
  for (const stage of [pack, runtime]) assert.match(stage[0]!.args, /^node:20(\.\d+)*-\w+-slim\b/);
  const packRuns = pack.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  assert.match(packRuns, 'npm pack');
  const runs = runtime.filter((i) => i.keyword === 'RUN').map((i) => i.args).join('\n');
  assert.ok(runtime.some((i) => i.keyword === 'COPY' && i.args.startsWith('--from=pack ') && i.args.includes('.tgz')), 'the packed tarball');
  assert.not.match(runs, /npm run|tsc|esbuild|npm install\b/, 'nothing is built in the image');
});

test('the image installs the package with the commands of the systemd steps in docs/operating.md (the ones its test runs)', () => {
  const runs = stages()[1]!.filter((i) => i.keyword === 'RUN').map((i) => i.args).join(' ');
  const steps = docSteps('docs/operating.md', 'systemd-install');
  const untar = steps.find((step) => step.includes(' tar '))!.replace(/^sudo /, '').split(/\s+/);
  const install = steps.find((step) => step.includes('npm ci'))!.replace(/^sudo /, '').split(/\s+/).filter((word, i, all) => word !== '--prefix' && all[i - 1] !== '--prefix');
  // The same flags; only the tarball's name differs.
  assert.match(runs, `tar ${untar.slice(1).map((word) => (word.endsWith('.tgz') ? '/tmp/vigil.tgz' : word)).join(' ')}`);
  assert.match(runs, install.join(' '));
  assert.match(runs, 'chmod -R u=rwX,go=rX /opt/vigil');
});

test('it runs as the numeric user 10001, checks its health with `vigil probe`, and starts vigil under an init', () => {
  const runtime = stages()[1]!;
  const one = (keyword: string) => {
    const found = runtime.filter((i) => i.keyword === keyword);
    assert.is(found.length, 1, keyword);
    return found[0]!.args;
  };
  assert.is(one('USER'), '10001:10001');
  assert.match(one('HEALTHCHECK'), /CMD \["vigil", "probe", "http:\/\/127\.0\.0\.1:8080\/health\/liveness"\]$/);
  assert.equal(JSON.parse(one('ENTRYPOINT')), ['/usr/bin/tini', '--', 'vigil']);
  assert.equal(JSON.parse(one('CMD')), ['--config', '/etc/vigil/registry.config.yaml', '--log-format', 'json']);
  assert.is(one('EXPOSE'), '8080');
  assert.match(one('ENV'), 'NODE_OPTIONS=--max-semi-space-size=4');
  assert.match(one('ENV'), / MALLOC_ARENA_MAX=2( |$)/);
  const ignored = readFileSync(join(repoRoot, 'deploy', 'Dockerfile.dockerignore'), 'utf8').split('\n');
  for (const entry of ['node_modules', 'dist', '.git']) assert.ok(ignored.includes(entry), `the build context leaves out ${entry}`);
});

test.run();
