import { mkdtemp, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { RunLog, refresh, registered, registrationAt } from '../../support/discovery.js';
import { writeAtomically } from './write.js';

const SOURCE = 'discovery-file';

async function withFile(text: string, section: Record<string, unknown>, body: (kernel: TestKernel, runs: RunLog, path: string) => Promise<void>, name = 'instances.yaml'): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'vigil-discovery-file-'));
  const path = join(dir, name);
  await writeFile(path, text);
  const runs = new RunLog();
  const kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: { path, ...section } } });
  try {
    await body(kernel, runs, path);
  } finally {
    await kernel.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

const TWO = '- name: orders\n  url: http://10.2.0.1:8080\n- name: orders\n  url: http://10.2.0.2:8080\n';
const ORDERS = ['orders http://10.2.0.1:8080/actuator/health', 'orders http://10.2.0.2:8080/actuator/health'];

test('a JSON file of SBA registrations (camelCase and snake_case) and service entries', () =>
  withFile(JSON.stringify([
    { name: 'billing', healthUrl: 'http://10.2.1.1:9000/mgmt/health', managementUrl: 'http://10.2.1.1:9000/mgmt', serviceUrl: 'http://10.2.1.1:9000/', metadata: { zone: 'a' } },
    { name: 'stock', health_url: 'http://10.2.1.2:9000/health', service_url: 'http://10.2.1.2:9000/' },
    { name: 'orders', url: 'http://10.2.1.3:8080', metadata: { 'management.port': 8081, secure: false } },
  ]), {}, async (kernel, runs) => {
    await runs.applied(SOURCE);
    assert.equal(registrationAt(kernel, 'http://10.2.1.1:9000/mgmt/health'), {
      name: 'billing', healthUrl: 'http://10.2.1.1:9000/mgmt/health', managementUrl: 'http://10.2.1.1:9000/mgmt', serviceUrl: 'http://10.2.1.1:9000/', source: 'discovery', metadata: { zone: 'a' },
    });
    assert.equal(registrationAt(kernel, 'http://10.2.1.2:9000/health'), {
      name: 'stock', healthUrl: 'http://10.2.1.2:9000/health', managementUrl: null, serviceUrl: 'http://10.2.1.2:9000/', source: 'discovery', metadata: {},
    });
    assert.equal(registrationAt(kernel, 'http://10.2.1.3:8081/actuator/health'), {
      name: 'orders', healthUrl: 'http://10.2.1.3:8081/actuator/health', managementUrl: 'http://10.2.1.3:8081/actuator', serviceUrl: 'http://10.2.1.3:8080', source: 'discovery', metadata: { 'management.port': '8081', secure: 'false' },
    });
  }, 'instances.json'));

test('garbage keeps the last good set and the error names file, line and column', () =>
  withFile(TWO, {}, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    const mark = runs.mark();
    await writeAtomically(path, '- name: orders\n  url: [http://10.2.0.1:8080\n- name: x\n');
    const run = await runs.failed(SOURCE, mark);
    assert.match(run.error!, new RegExp(`^${path}:3:\\d+: `));
    assert.equal(registered(kernel), ORDERS);
    assert.ok(kernel.logs().some((line) => line.includes('warn') && line.includes(`${path}:3:`)), kernel.logs().join('\n'));
  }));

test('an entry that is wrong refuses the whole file, naming each entry by line and column', () =>
  withFile(TWO, {}, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    const mark = runs.mark();
    await writeAtomically(path, `${TWO}- name: orders\n  metdata: {}\n  url: http://10.2.0.3:8080\n-   name: ""\n    url: nowhere\n- just text\n`);
    const run = await runs.failed(SOURCE, mark);
    assert.is(run.error!.split(`${path}:`).length - 1, 3, run.error);
    assert.ok(run.error!.startsWith(`${path}:5:3: entry 3: unknown key(s) metdata`), run.error);
    assert.ok(run.error!.includes(`; ${path}:8:5: entry 4: 'name' must be a non-empty string`), run.error);
    assert.ok(run.error!.includes(`; ${path}:10:3: entry 5: expected a mapping, got a string`), run.error);
    assert.equal(registered(kernel), ORDERS);
  }));

test('a URL with a password is never logged or reported in clear, in either form of entry', () =>
  withFile(TWO, {}, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    const mark = runs.mark();
    await writeAtomically(path, `${TWO}- name: orders\n  url: http://ops:FILE-SECRET-1@10.2.0.3:8080\n- name: orders\n  healthUrl: "http:ops:FILE-SECRET-2@10.2.0.4/health"\n`);
    const run = await runs.failed(SOURCE, mark);
    assert.ok(run.error!.includes('http://ops:******@10.2.0.3:8080'), run.error);
    const warnings = kernel.logs().filter((line) => line.includes('warn'));
    assert.ok(warnings.some((line) => line.includes('http://ops:******@10.2.0.3:8080')), warnings.join('\n'));
    for (const line of kernel.logs()) assert.not.ok(/FILE-SECRET/.test(line), line);
    assert.equal(registered(kernel), ORDERS);
  }));

test('a deleted file keeps the set (missing: keep); an empty file is an error, not an empty list', () =>
  withFile(TWO, {}, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    let mark = runs.mark();
    await unlink(path);
    assert.is((await runs.failed(SOURCE, mark)).error, `${path} does not exist (missing: keep)`);
    mark = runs.mark();
    await writeFile(path, '  \n');
    assert.is((await runs.failed(SOURCE, mark)).error, `${path}: the file is empty (write [] to list no instances)`);
    assert.equal(registered(kernel), ORDERS);
    mark = runs.mark();
    await writeFile(path, '[]');
    assert.is((await runs.applied(SOURCE, mark)).diff?.withheld, 2, 'an explicit empty list is believed, after the guard');
  }));

test('missing: empty: a deleted file lists nothing, subject to the removal guard', () =>
  withFile(TWO, { missing: 'empty' }, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    let mark = runs.mark();
    await unlink(path);
    assert.is((await runs.applied(SOURCE, mark)).diff?.withheld, 2);
    mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.removed, 2);
    assert.equal(registered(kernel), []);
  }));

test('a file written in place (no rename) is seen too; the interval re-reads it as a safety net', () =>
  withFile(TWO, { 'refresh-interval': '150ms' }, async (kernel, runs, path) => {
    await runs.applied(SOURCE);
    const mark = runs.mark();
    await writeFile(path, `${TWO}- {name: billing, url: "http://10.2.0.9:8080"}\n`);
    await runs.wait(SOURCE, (run) => run.diff?.added === 1, mark);
    assert.equal(registered(kernel), [...ORDERS, 'billing http://10.2.0.9:8080/actuator/health'].sort());
    await runs.wait(SOURCE, (run) => run.reason === 'interval', mark);
  }));

test('config: path is required; unknown keys, a bad missing and a bad max-removal are named', async () => {
  assert.equal(await checkPlugin(SOURCE, { [SOURCE]: { path: '/x' } }), []);
  const problems = await checkPlugin(SOURCE, { [SOURCE]: { missing: 'drop', 'max-removal': '150%', typo: 1, 'refresh-interval': 'often' } });
  for (const words of ['discovery-file.path: is required', 'discovery-file.missing: must be keep or empty', 'discovery-file.max-removal: must be between 0% and 100%',
    'discovery-file: unknown key(s): typo', 'discovery-file.refresh-interval: must be a duration']) {
    assert.ok(problems.some((problem) => problem.includes(words)), `${words} in ${problems.join('\n')}`);
  }
  assert.ok((await checkPlugin(SOURCE, { [SOURCE]: { path: '/x', services: 'orders', 'instances-metadata': { a: { b: 1 } } } })).length === 2);
});

test.run();
