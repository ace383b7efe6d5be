import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { RunLog, refresh, registered, registrationAt } from '../../support/discovery.js';
import { eventually } from '../../support/http.js';
import { FakeConsul, consulInstance, type ConsulInstance } from './fake-consul.js';

const SOURCE = 'discovery-consul';
const orders1 = consulInstance({ name: 'orders', host: '10.5.0.1', port: 8080 });
const orders2 = consulInstance({ name: 'orders', host: '10.5.0.2', port: 8080 });
const billing = consulInstance({ name: 'billing', host: '10.5.0.3', port: 9000 });

async function withConsul(instances: ConsulInstance[], section: Record<string, unknown>, body: (kernel: TestKernel, runs: RunLog, consul: FakeConsul) => Promise<void>, prepare?: (consul: FakeConsul) => void): Promise<void> {
  const consul = await FakeConsul.start();
  consul.set(instances);
  prepare?.(consul);
  const runs = new RunLog();
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: { url: consul.url, ...section } } });
    await body(kernel, runs, consul);
  } finally {
    await kernel?.stop();
    await consul.close();
  }
}

/** The blocking queries the source holds open now, with the index each carries. */
const heldQueries = (consul: FakeConsul) => consul.held().join(',');
const lastIndexOf = (consul: FakeConsul, path: string) => consul.requests.filter((r) => r.path === path && r.query.has('index')).at(-1)?.query.get('index');

test('blocking queries: index and wait sent, never passing; a change is seen without polling', () =>
  withConsul([orders1], { wait: '30s' }, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    await eventually(() => heldQueries(consul) === 'catalog,orders', 'the catalog and the service watched');
    const blocking = consul.requests.filter((r) => r.query.has('index') && r.query.get('index') !== '0');
    assert.ok(blocking.length >= 2);
    for (const request of blocking) assert.is(request.query.get('wait'), '30s');
    assert.ok(consul.requests.every((r) => !r.query.has('passing')), 'all instances, whatever their checks');
    const mark = runs.mark();
    consul.set([orders1, orders2, billing]);
    const run = await runs.wait(SOURCE, () => registered(kernel).length === 3, mark);
    assert.is(run.reason, 'change');
  }));

test('a spurious wake-up (same index) is asked again at once and starts no run', () =>
  withConsul([orders1], {}, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    await eventually(() => heldQueries(consul) === 'catalog,orders', 'the watches');
    // Runs are one at a time and a refresh absorbs every run asked before it: after it, none is pending.
    let mark = runs.mark();
    await refresh(kernel);
    await runs.wait(SOURCE, (run) => run.reason === 'refresh', mark);
    const index = lastIndexOf(consul, '/v1/health/service/orders');
    const count = consul.requests.length;
    mark = runs.mark();
    consul.spurious();
    await eventually(() => consul.requests.length >= count + 2 && heldQueries(consul) === 'catalog,orders', 'the queries asked again');
    assert.is(lastIndexOf(consul, '/v1/health/service/orders'), index, 'the same index');
    consul.set([orders1, orders2]);
    await runs.wait(SOURCE, () => registered(kernel).length === 2, mark);
    assert.equal(runs.runs.slice(mark).map((run) => run.reason), ['change'], 'one run: the change, none for the wake-up');
  }));

test('an index that goes backwards is reset to 0, and watching goes on', () =>
  withConsul([orders1], {}, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    await eventually(() => heldQueries(consul) === 'catalog,orders', 'the watches');
    const count = consul.requests.length;
    consul.reset();
    await eventually(() => consul.requests.slice(count).filter((r) => r.query.get('index') === '0').length >= 2, 'queries with index 0');
    await eventually(() => heldQueries(consul) === 'catalog,orders', 'blocking again');
    const mark = runs.mark();
    consul.set([orders1, billing]);
    await runs.wait(SOURCE, () => registered(kernel).length === 2, mark);
  }));

test('the ACL token goes in X-Consul-Token on every request; a refused one fails the run and is never shown', () =>
  withConsul([orders1], { token: 'tok-7b1e' }, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    assert.ok(consul.requests.every((r) => r.headers['x-consul-token'] === 'tok-7b1e'));
    consul.token = 'rotated';
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.failed(SOURCE, mark);
    assert.is(run.error, `GET ${consul.url}/v1/catalog/services: HTTP 403: ACL not found`);
    assert.not.ok(kernel.logs().some((line) => line.includes('tok-7b1e')));
  }, (consul) => { consul.token = 'tok-7b1e'; }));

test('instances failing their Consul checks are kept; the node\'s address when the service has none; dashed metadata; secure=true', () =>
  withConsul([
    { ...orders1, status: 'critical' },
    { ...orders2, address: '', meta: { 'management-context-path': '/manage', 'management-port': '8081' } },
    { ...billing, meta: { secure: 'true' } },
  ], {}, async (kernel, runs) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), [
      'billing https://10.5.0.3:9000/actuator/health', 'orders http://10.5.0.1:8080/actuator/health', 'orders http://10.5.0.2:8081/manage/health',
    ]);
    assert.equal(registrationAt(kernel, 'http://10.5.0.2:8081/manage/health'), {
      name: 'orders', healthUrl: 'http://10.5.0.2:8081/manage/health', managementUrl: 'http://10.5.0.2:8081/manage', serviceUrl: 'http://10.5.0.2:8080',
      source: 'discovery', metadata: { 'management-context-path': '/manage', 'management-port': '8081' },
    });
  }));

test('POST /applications reads Consul afresh, also what the watches have not seen yet', () =>
  withConsul([orders1], {}, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    await eventually(() => heldQueries(consul) === 'catalog,orders', 'the watches');
    consul.set([orders1, billing], { quiet: true });
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.wait(SOURCE, (r) => r.reason === 'refresh', mark);
    assert.is(run.diff?.added, 1);
    assert.is(registered(kernel).length, 2);
  }));

test('the consul service itself is listed like any other; ignored-services leaves it out', () =>
  withConsul([orders1, { service: 'consul', id: 'consul', node: 'server-1', nodeAddress: '10.5.0.100', address: '', port: 8300 }], { 'ignored-services': ['consul'] }, async (kernel, runs, consul) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), ['orders http://10.5.0.1:8080/actuator/health']);
    assert.not.ok(consul.requests.some((r) => r.path === '/v1/health/service/consul'), 'an ignored service is not even read');
  }));

test('config: defaults, wait bounds, url', async () => {
  assert.equal(await checkPlugin(SOURCE, {}), []);
  assert.ok((await checkPlugin(SOURCE, { [SOURCE]: { wait: '11m' } })).some((p) => p.includes('discovery-consul.wait: must be at most 10m')));
  assert.ok((await checkPlugin(SOURCE, { [SOURCE]: { url: 'consul:8500' } })).some((p) => p.includes('must be an http(s) URL')));
});

test.run();
