import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { RunLog, refresh, registered, registrationAt } from '../../support/discovery.js';
import { eventually } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';
import { FakeKubeApi } from './fake-kube-api.js';
import { NAMESPACE, SELECTOR, service, slice } from './fixtures.js';

const SOURCE = 'discovery-kubernetes';
const TLS = join(repoRoot, 'test', 'fixtures', 'kubernetes-tls');
const SERVICES = `/api/v1/namespaces/${NAMESPACE}/services`;
const SLICES = `/apis/discovery.k8s.io/v1/namespaces/${NAMESPACE}/endpointslices`;

async function withApi(setup: (api: FakeKubeApi) => void, section: Record<string, unknown>, body: (kernel: TestKernel, runs: RunLog, api: FakeKubeApi) => Promise<void>): Promise<void> {
  const api = await FakeKubeApi.start();
  setup(api);
  const runs = new RunLog();
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: { 'api-url': api.url, namespaces: [NAMESPACE], 'label-selector': SELECTOR, ...section } } });
    await body(kernel, runs, api);
  } finally {
    await kernel?.stop();
    await api.close();
  }
}

const orders = (api: FakeKubeApi) => {
  api.apply('services', NAMESPACE, service('orders'));
  api.apply('endpointslices', NAMESPACE, slice('orders-a', 'orders', [{ address: '10.244.1.1' }, { address: '10.244.1.2' }]));
};
// Open after the last lists: a watch the start run's list is cutting does not count (a bookmark sent to it is lost).
const watchesOpen = (api: FakeKubeApi) => eventually(() => api.watchingSinceList().join(',') === `endpointslices/${NAMESPACE},services/${NAMESPACE}`, 'both watches open');
const lastWatch = (api: FakeKubeApi, path: string) => api.requests.filter((r) => r.path === path && r.query.get('watch') === '1').at(-1);
const lists = (api: FakeKubeApi, path: string) => api.requests.filter((r) => r.path === path && !r.query.has('watch')).length;

test('list, then watch from the list\'s resourceVersion with bookmarks; the selector picks Services, their slices are joined', () =>
  withApi((api) => {
    orders(api);
    api.apply('endpointslices', NAMESPACE, slice('orders-b', 'orders', [{ address: '10.244.2.1' }, { address: '10.244.1.2' }]));
    api.apply('services', NAMESPACE, service('internal', { labels: { 'vigil.io/monitor': 'false' } }));
    api.apply('endpointslices', NAMESPACE, slice('internal-a', 'internal', [{ address: '10.244.3.1' }]));
  }, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    // Two slices of one service joined; 10.244.1.2 sits in both and counts once; `internal` is not selected.
    assert.equal(registered(kernel), ['orders http://10.244.1.1:8080/actuator/health', 'orders http://10.244.1.2:8080/actuator/health', 'orders http://10.244.2.1:8080/actuator/health']);
    await watchesOpen(api);
    const watch = lastWatch(api, SERVICES)!;
    assert.is(watch.query.get('labelSelector'), SELECTOR);
    assert.is(watch.query.get('allowWatchBookmarks'), 'true');
    assert.ok(Number(watch.query.get('resourceVersion')) > 0);
    assert.ok(Number(watch.query.get('timeoutSeconds')) >= 300);
    assert.not.ok(lastWatch(api, SLICES)!.query.has('labelSelector'), 'slices are read whole and joined by service name');
    assert.ok(api.requests.filter((r) => r.query.has('limit')).every((r) => r.query.get('limit') === '500'), 'lists are paged');
    assert.equal([lists(api, SERVICES), lists(api, SLICES)], [1, 1], 'the first run and the watches share one list of each');

    const mark = runs.mark();
    api.apply('endpointslices', NAMESPACE, slice('orders-b', 'orders', [{ address: '10.244.2.1' }, { address: '10.244.2.2' }]));
    const run = await runs.wait(SOURCE, (r) => r.diff?.added === 1, mark);
    assert.is(run.reason, 'change');
    assert.is(registered(kernel).length, 4);
  }));

test('a list longer than a page is read with continue tokens from one snapshot', () =>
  withApi((api) => {
    for (let index = 0; index < 520; index++) api.apply('services', NAMESPACE, service(`svc-${String(index).padStart(3, '0')}`));
    api.apply('endpointslices', NAMESPACE, slice('svc-519-a', 'svc-519', [{ address: '10.244.9.9' }]));
    api.apply('endpointslices', NAMESPACE, slice('svc-000-a', 'svc-000', [{ address: '10.244.9.1' }]));
  }, { watch: false }, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), ['svc-000 http://10.244.9.1:8080/actuator/health', 'svc-519 http://10.244.9.9:8080/actuator/health']);
    let pages = api.requests.filter((r) => r.path === SERVICES);
    assert.is(pages.length, 2);
    assert.ok(pages[1]!.query.get('continue'), 'the second page asks with the token');
    assert.is(api.watching().length, 0, 'watch: false only lists');

    // A token that outlived the server's history: the list starts over.
    api.expireNextContinue = true;
    api.apply('endpointslices', NAMESPACE, slice('svc-300-a', 'svc-300', [{ address: '10.244.9.3' }]));
    const mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.added, 1);
    pages = api.requests.filter((r) => r.path === SERVICES).slice(2);
    assert.equal(pages.map((r) => r.query.has('continue')), [false, true, false, true]);
  }));

test('bookmarks move the resourceVersion on: after a compaction the watch resumes from the bookmark without relisting', () =>
  withApi(orders, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    await watchesOpen(api);
    // Something unrelated moves the server's resourceVersion on, and only a bookmark tells the client.
    api.apply('services', 'elsewhere', service('unrelated'));
    api.bookmark();
    const bookmark = api.resourceVersion;
    // A change the client sees, sent after the bookmarks: once it is applied, they have arrived.
    const mark = runs.mark();
    api.apply('endpointslices', NAMESPACE, slice('orders-a', 'orders', [{ address: '10.244.1.1' }]));
    await runs.wait(SOURCE, () => registered(kernel).length === 1, mark);
    const listed = lists(api, SERVICES);
    api.compact(bookmark);
    const count = api.requests.length;
    api.endWatches();
    await eventually(() => api.requests.length >= count + 2 && api.watching().length === 2, 'watches resumed');
    assert.is(lastWatch(api, SERVICES)!.query.get('resourceVersion'), bookmark);
    assert.is(lists(api, SERVICES), listed, 'no relist');
  }));

test('a 410 inside the watch stream makes it list again; what changed meanwhile is seen', () =>
  withApi(orders, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    await watchesOpen(api);
    const listed = lists(api, SLICES);
    // Changes the watch does not deliver, then the history is gone and the stream says so.
    api.apply('endpointslices', NAMESPACE, slice('orders-a', 'orders', [{ address: '10.244.1.1' }, { address: '10.244.1.2' }, { address: '10.244.1.3' }]), { quiet: true });
    api.compact();
    const mark = runs.mark();
    api.expire();
    await runs.wait(SOURCE, () => registered(kernel).length === 3, mark);
    assert.ok(lists(api, SLICES) > listed, 'listed again');
    await watchesOpen(api);
  }));

test('a watch that resumes from a compacted resourceVersion gets the 410 as an ERROR event and relists', () =>
  withApi(orders, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    await watchesOpen(api);
    api.apply('services', NAMESPACE, service('billing'), { quiet: true });
    api.apply('endpointslices', NAMESPACE, slice('billing-a', 'billing', [{ address: '10.244.4.1' }]), { quiet: true });
    api.compact();
    const mark = runs.mark();
    api.endWatches();
    await runs.wait(SOURCE, () => registered(kernel).length === 3, mark);
  }));

test('not-ready endpoints are kept (a crashing pod shows DOWN); the management port; https by name', () =>
  withApi((api) => {
    api.apply('services', NAMESPACE, service('pay', { annotations: { team: 'payments' }, ports: [{ name: 'https', port: 8443 }, { name: 'management', port: 9090 }] }));
    api.apply('endpointslices', NAMESPACE, slice('pay-a', 'pay', [{ address: '10.244.5.1' }, { address: '10.244.5.2', ready: false }, { address: '10.244.5.3', ready: null }],
      [{ name: 'management', port: 9090 }, { name: 'https', port: 8443 }]));
  }, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), ['pay https://10.244.5.1:9090/actuator/health', 'pay https://10.244.5.2:9090/actuator/health', 'pay https://10.244.5.3:9090/actuator/health']);
    assert.equal(registrationAt(kernel, 'https://10.244.5.1:9090/actuator/health'), {
      name: 'pay', healthUrl: 'https://10.244.5.1:9090/actuator/health', managementUrl: 'https://10.244.5.1:9090/actuator', serviceUrl: 'https://10.244.5.1:8443',
      source: 'discovery', metadata: { app: 'pay', 'vigil.io/monitor': 'true', team: 'payments' },
    });
    // The first pod crashes: it stays, and nothing is recorded for it.
    await watchesOpen(api);
    const seq = kernel.kernel.registry.lastSeq;
    const mark = runs.mark();
    api.apply('endpointslices', NAMESPACE, slice('pay-a', 'pay', [{ address: '10.244.5.1', ready: false }, { address: '10.244.5.2', ready: false }, { address: '10.244.5.3', ready: null }],
      [{ name: 'management', port: 9090 }, { name: 'https', port: 8443 }]));
    await runs.applied(SOURCE, mark);
    assert.is(kernel.kernel.registry.lastSeq, seq);
  }));

test('include-not-ready: false leaves not-ready endpoints out', () =>
  withApi((api) => {
    api.apply('services', NAMESPACE, service('pay'));
    api.apply('endpointslices', NAMESPACE, slice('pay-a', 'pay', [{ address: '10.244.5.1' }, { address: '10.244.5.2', ready: false }]));
  }, { 'include-not-ready': false }, async (kernel, runs) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), ['pay http://10.244.5.1:8080/actuator/health']);
  }));

test('POST /applications lists afresh, also what the watches have not delivered', () =>
  withApi(orders, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    await watchesOpen(api);
    api.apply('endpointslices', NAMESPACE, slice('orders-a', 'orders', [{ address: '10.244.1.1' }]), { quiet: true });
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.wait(SOURCE, (r) => r.reason === 'refresh', mark);
    assert.is(run.diff?.removed, 1);
  }));

test('RBAC refusals fail the run with the API server\'s message; nothing is removed', () =>
  withApi(orders, {}, async (kernel, runs, api) => {
    await runs.applied(SOURCE);
    api.forbidden.add(NAMESPACE);
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.failed(SOURCE, mark);
    assert.match(run.error!, /HTTP 403: .*cannot list resource \\"(services|endpointslices)\\"/);
    assert.is(registered(kernel).length, 2);
  }));

test('in a pod: KUBERNETES_SERVICE_HOST/PORT over TLS with the service account\'s CA, token (re-read as it rotates) and namespace', async () => {
  const tls = { key: readFileSync(join(TLS, 'server.key'), 'utf8'), cert: readFileSync(join(TLS, 'server.crt'), 'utf8') };
  const api = await FakeKubeApi.start(tls);
  const account = await mkdtemp(join(tmpdir(), 'vigil-serviceaccount-'));
  const saved = { host: process.env.KUBERNETES_SERVICE_HOST, port: process.env.KUBERNETES_SERVICE_PORT };
  process.env.KUBERNETES_SERVICE_HOST = '127.0.0.1';
  process.env.KUBERNETES_SERVICE_PORT = String(api.port);
  await writeFile(join(account, 'token'), 'token-one\n');
  await writeFile(join(account, 'namespace'), NAMESPACE);
  await writeFile(join(account, 'ca.crt'), tls.cert);
  api.token = 'token-one';
  orders(api);
  const runs = new RunLog();
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: { 'token-file': join(account, 'token'), 'ca-file': join(account, 'ca.crt') } } });
    await runs.applied(SOURCE);
    assert.is(registered(kernel).length, 2);
    assert.ok(api.requests.every((r) => r.path.includes(`/namespaces/${NAMESPACE}/`)), 'the pod\'s namespace');
    // The kubelet rotates the token: the next request carries the new one.
    await writeFile(join(account, 'token'), 'token-two\n');
    api.token = 'token-two';
    const mark = runs.mark();
    await refresh(kernel);
    await runs.applied(SOURCE, mark);
    assert.is(api.requests.at(-1)?.headers.authorization, 'Bearer token-two');
  } finally {
    process.env.KUBERNETES_SERVICE_HOST = saved.host;
    process.env.KUBERNETES_SERVICE_PORT = saved.port;
    if (saved.host === undefined) delete process.env.KUBERNETES_SERVICE_HOST;
    if (saved.port === undefined) delete process.env.KUBERNETES_SERVICE_PORT;
    await kernel?.stop();
    await api.close();
    await rm(account, { recursive: true, force: true });
  }
});

test('outside a pod without api-url every run fails, saying what to set', async () => {
  // Where the tests themselves run in a pod, the variable is there: hide it for this test.
  const host = process.env.KUBERNETES_SERVICE_HOST;
  delete process.env.KUBERNETES_SERVICE_HOST;
  try {
    await withApi(() => undefined, { 'api-url': undefined }, async (_kernel, runs) => {
      assert.is((await runs.failed(SOURCE)).error, 'not running in a pod (no KUBERNETES_SERVICE_HOST): set discovery-kubernetes.api-url');
    });
  } finally {
    if (host !== undefined) process.env.KUBERNETES_SERVICE_HOST = host;
  }
});

test('config: namespaces and api-url are checked', async () => {
  assert.equal(await checkPlugin(SOURCE, {}), []);
  const problems = await checkPlugin(SOURCE, { [SOURCE]: { namespaces: ['Shop_1'], 'api-url': 'kubernetes:443' } });
  assert.ok(problems.some((p) => p.includes('namespaces[0]: must be a namespace name')), problems.join('\n'));
  assert.ok(problems.some((p) => p.includes('api-url: must be an http(s) URL')), problems.join('\n'));
});

test.run();
