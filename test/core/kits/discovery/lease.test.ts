import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENT_LOG, type EventLog, type InstanceTransition, type LogReceiver, type NewEvent } from '../../../../core/event-log.js';
import { LEASES, SHARED_STATE, StaleFenceError, type Fence, type Lease, type VigilPlugin } from '../../../../core/plugin-api.js';
import { LocalSharedState } from '../../../../core/contract/shared-state.js';
import { MemoryEventLog } from '../../../../core/store/memory-event-log.js';
import type { InstanceEvent } from '../../../../core/store/types.js';
import { startTestKernel, type TestKernel } from '../../../../bin/testing.js';
import { eventually } from '../../../support/http.js';
import { RunLog, refresh, registered } from '../../../support/discovery.js';
import { healthOf, scriptedSource, service } from './support.js';

// What a clustering plugin provides (LEASES, SHARED_STATE, EVENT_LOG), played by the test: runs
// only on the lease holder, fenced writes, and state that outlives the node that wrote it.
const SOURCE = 'discovery-script';

/** The memory log, recording the fence of every append and refusing tokens below `current`. */
class FencedLog implements EventLog {
  readonly #inner = new MemoryEventLog();
  readonly fences: (Fence | undefined)[] = [];
  current = 0;
  open(receiver: LogReceiver): Promise<void> {
    return this.#inner.open(receiver);
  }
  async append(event: NewEvent, _change: InstanceTransition, fence?: Fence): Promise<InstanceEvent> {
    if (fence && fence.token < this.current) throw new StaleFenceError(fence, this.current);
    this.fences.push(fence);
    return this.#inner.append(event);
  }
  drop(id: string, _fence: Fence): Promise<void> {
    return this.#inner.drop(id);
  }
  close(): Promise<void> {
    return this.#inner.close();
  }
}

interface Cluster {
  lease: { held: boolean; token: number | undefined };
  log: FencedLog;
  state: LocalSharedState;
}

function clusterPlugin(cluster: Cluster): VigilPlugin<never> {
  return {
    name: 'fake-cluster',
    configKey: null,
    setup(ctx) {
      const lease: Lease = { get held() { return cluster.lease.held; }, get token() { return cluster.lease.token; } };
      ctx.services.provide(LEASES, { lease: (name) => (name === SOURCE ? lease : { held: true, token: 1 }) });
      ctx.services.provide(EVENT_LOG, cluster.log);
      ctx.services.provide(SHARED_STATE, cluster.state);
    },
  };
}

async function withCluster(body: (kernel: TestKernel, runs: RunLog, cluster: Cluster, source: ReturnType<typeof scriptedSource>) => Promise<void>): Promise<void> {
  const cluster: Cluster = { lease: { held: false, token: undefined }, log: new FencedLog(), state: new LocalSharedState() };
  const source = scriptedSource();
  source.script.entries = [service('orders', 'a'), service('orders', 'b')];
  const runs = new RunLog();
  const kernel = await startTestKernel({ plugins: [clusterPlugin(cluster), runs.plugin, 'rest-api', source.plugin], config: { [SOURCE]: { 'max-removal': '100%' } } });
  try {
    await body(kernel, runs, cluster, source);
  } finally {
    await kernel.stop();
  }
}

test('without the lease nothing runs, POST /applications included; once granted the source runs with its token on every write', () =>
  withCluster(async (kernel, runs, cluster, { script }) => {
    await refresh(kernel);
    assert.equal(script.calls, [], 'the node that does not hold the lease leaves the source alone');
    cluster.lease.held = true;
    cluster.lease.token = 7;
    await runs.applied(SOURCE);
    assert.equal(script.calls, ['start']);
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`, `orders ${healthOf('b')}`]);
    assert.equal(cluster.log.fences, [{ lease: SOURCE, token: 7 }, { lease: SOURCE, token: 7 }]);

    script.entries = [service('orders', 'a')];
    const mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.removed, 1);
    assert.equal(cluster.log.fences.at(-1), { lease: SOURCE, token: 7 }, 'the deregistration is fenced');
  }));

test('a node that takes the lease over continues from the shared state: it removes what the source listed before, and nothing else', () =>
  withCluster(async (kernel, runs, cluster, { script }) => {
    const registry = kernel.kernel.registry;
    // Written by the previous holder: `gone` was listed and registered by this source.
    const gone = await registry.register({ name: 'orders', healthUrl: healthOf('gone'), managementUrl: null, serviceUrl: null, source: 'discovery', metadata: {} });
    const foreign = await registry.register({ name: 'orders', healthUrl: healthOf('foreign'), managementUrl: null, serviceUrl: null, source: 'discovery', metadata: {} });
    await cluster.state.map('discovery').set(`${SOURCE}.owned`, JSON.stringify([gone.id]));
    await cluster.state.map('discovery').set('discovery-other.owned', JSON.stringify([foreign.id]));
    script.entries = [service('orders', 'a')];
    cluster.lease.held = true;
    cluster.lease.token = 8;
    assert.equal((await runs.applied(SOURCE)).diff, { added: 1, updated: 0, removed: 1, kept: 0, withheld: 0, untouched: 0 });
    assert.equal(registered(kernel), [`orders ${healthOf('a')}`, `orders ${healthOf('foreign')}`]);
    assert.equal(JSON.parse((await cluster.state.map('discovery').get(`${SOURCE}.owned`))!), [registry.list().find((i) => i.registration?.healthUrl === healthOf('a'))!.id]);
  }));

test('a decision whose token went stale is refused: the run fails and says the lease moved', () =>
  withCluster(async (kernel, runs, cluster, { script, changed }) => {
    cluster.lease.held = true;
    cluster.lease.token = 7;
    await runs.applied(SOURCE);
    cluster.log.current = 9;
    script.entries = [];
    const mark = runs.mark();
    changed();
    const run = await runs.failed(SOURCE, mark);
    assert.ok(run.error?.startsWith('the lease moved to another node'), run.error);
    assert.is(registered(kernel).length, 2);
  }));

test('losing the lease stops the source: no runs on changes or refreshes', () =>
  withCluster(async (kernel, runs, cluster, { script, changed }) => {
    cluster.lease.held = true;
    cluster.lease.token = 7;
    await runs.applied(SOURCE);
    cluster.lease.held = false;
    cluster.lease.token = undefined;
    await eventually(() => kernel.logs().some((line) => line.includes('no longer holds the lease')), 'the lease check');
    changed();
    await refresh(kernel);
    assert.equal(script.calls, ['start']);
  }));

test.run();
