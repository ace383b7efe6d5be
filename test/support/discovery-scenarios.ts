import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isDeepStrictEqual } from 'node:util';
import type { DiscoveryRun } from '../../core/kits/discovery/index.js';
import { startTestKernel, type TestKernel } from '../../bin/testing.js';
import { RunLog, refresh, registerOverHttp, registered, registrationAt } from './discovery.js';

/** One instance as a fake peer lists it. */
export interface PeerInstance {
  readonly name: string;
  /** An IPv4 address (Kubernetes lists addresses) that no test connects to. */
  readonly host: string;
  readonly port: number;
  readonly metadata?: Readonly<Record<string, string>>;
}

/** The real or faithful peer a source reads: what it lists, and whether it answers with errors. */
export interface Peer {
  set(instances: readonly PeerInstance[]): Promise<void>;
  fail(failing: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface SourceUnderTest {
  /** The plugin name, also its config section. */
  readonly plugin: string;
  /** Starts the peer listing `instances`; returns it and the section that points the plugin at it. */
  start(instances: readonly PeerInstance[]): Promise<{ peer: Peer; config: Record<string, unknown> }>;
  /** The `name healthUrl` line the registry should show for an instance. */
  line(instance: PeerInstance): string;
  /** True when the source sees changes by itself (file watch, Kubernetes watch, Consul blocking query). */
  readonly watches: boolean;
}

const a: PeerInstance = { name: 'orders', host: '10.1.0.1', port: 8080 };
const b: PeerInstance = { name: 'orders', host: '10.1.0.2', port: 8080 };
const c: PeerInstance = { name: 'billing', host: '10.1.0.3', port: 8081 };

interface World {
  kernel: TestKernel;
  runs: RunLog;
  peer: Peer;
  /** Waits until the source applied a run after which the registry shows exactly `instances` (plus `also`). */
  settle(instances: readonly PeerInstance[], also?: readonly string[]): Promise<DiscoveryRun>;
  /** POST /applications and the run it caused. */
  refreshed(): Promise<DiscoveryRun>;
}

/**
 * The scenarios issue 17 asks of every source, against its peer: add, change, remove; an error
 * keeps the set; the removal guard; filters; HTTP registrations untouched; `POST /applications`.
 */
export function discoveryScenarios(source: SourceUnderTest): void {
  const scenarios = suite(`${source.plugin}: scenarios`);
  const lines = (instances: readonly PeerInstance[], also: readonly string[] = []) => [...instances.map(source.line), ...also].sort();

  async function withWorld(initial: readonly PeerInstance[], extra: Record<string, unknown>, body: (world: World) => Promise<void>): Promise<void> {
    const { peer, config } = await source.start(initial);
    const runs = new RunLog();
    let kernel: TestKernel | undefined;
    try {
      kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', source.plugin], config: { [source.plugin]: { ...config, ...extra } } });
      const k = kernel;
      await runs.applied(source.plugin);
      const refreshed = async () => {
        const mark = runs.mark();
        await refresh(k);
        return runs.wait(source.plugin, (run) => run.reason === 'refresh', mark);
      };
      const settle = async (instances: readonly PeerInstance[], also: readonly string[] = []) => {
        const expected = lines(instances, also);
        const mark = runs.mark();
        if (!source.watches) await refreshed();
        return runs.wait(source.plugin, (run) => run.outcome === 'applied' && isDeepStrictEqual(registered(k), expected), mark);
      };
      await body({ kernel, runs, peer, settle, refreshed });
    } finally {
      await kernel?.stop();
      await peer.close();
    }
  }

  scenarios('lists what the peer lists, then sees an instance added, one changed and one removed', () =>
    withWorld([a, b], {}, async ({ kernel, peer, settle }) => {
      assert.equal(registered(kernel), lines([a, b]));
      assert.is(registrationAt(kernel, source.line(a).split(' ')[1]!)?.source, 'discovery');
      const changed = { ...a, metadata: { tier: 'gold' } };
      await peer.set([changed, c]);
      await settle([changed, c]);
      assert.is(registrationAt(kernel, source.line(a).split(' ')[1]!)?.metadata.tier, 'gold');
      const types = kernel.kernel.registry.events().map((event) => event.type);
      assert.equal(types.filter((type) => type === 'REGISTERED').length, 3);
      // At least a's: a watching source may see the service's metadata change before b leaves it.
      assert.ok(types.filter((type) => type === 'REGISTRATION_UPDATED').length >= 1);
      assert.equal(types.filter((type) => type === 'DEREGISTERED').length, 1);
    }));

  scenarios('a failing peer keeps the last good set; the source recovers', () =>
    withWorld([a, b], {}, async ({ kernel, peer, refreshed, settle }) => {
      await peer.fail(true);
      const run = await refreshed();
      assert.is(run.outcome, 'failed');
      assert.ok(run.error, 'the run names its error');
      assert.equal(registered(kernel), lines([a, b]));
      await peer.fail(false);
      await peer.set([a, b, c]);
      await settle([a, b, c]);
    }));

  scenarios('the removal guard: a peer that suddenly lists nothing is believed only when the next run agrees', () =>
    withWorld([a, b], {}, async ({ kernel, peer, runs, refreshed }) => {
      const mark = runs.mark();
      await peer.set([]);
      if (!source.watches) await refreshed();
      const withheld = await runs.wait(source.plugin, (run) => run.outcome === 'applied' && (run.diff?.withheld ?? 0) > 0, mark);
      assert.is(withheld.diff?.withheld, 2);
      assert.equal(registered(kernel), lines([a, b]));
      const agreed = await refreshed();
      assert.is(agreed.diff?.removed, 2);
      assert.equal(registered(kernel), []);
    }));

  scenarios('filters: ignored-services and ignored-instances-metadata', () =>
    withWorld(
      [a, { name: 'ignored-batch', host: '10.1.0.9', port: 8080 }, { ...c, metadata: { monitoring: 'off' } }],
      { 'ignored-services': ['IGNORED-*'], 'ignored-instances-metadata': { monitoring: 'off' } },
      async ({ kernel }) => {
        assert.equal(registered(kernel), lines([a]));
      },
    ));

  scenarios('instances registered over HTTP are never touched', () =>
    withWorld([a, b], { 'max-removal': '100%' }, async ({ kernel, peer, settle }) => {
      await registerOverHttp(kernel, { name: 'manual', healthUrl: 'http://10.9.9.9:1/health' });
      const [name, healthUrl] = source.line(b).split(' ');
      await registerOverHttp(kernel, { name, healthUrl });
      // Still listed, and c added: a run happens, and b stays the HTTP API's.
      await peer.set([a, b, c]);
      await settle([a, b, c], ['manual http://10.9.9.9:1/health']);
      assert.is(registrationAt(kernel, healthUrl!)?.source, 'http-api');
      await peer.set([]);
      await settle([], ['manual http://10.9.9.9:1/health', source.line(b)]);
      assert.is(registrationAt(kernel, healthUrl!)?.source, 'http-api');
    }));

  scenarios('POST /applications runs the source now', () =>
    withWorld([a], {}, async ({ kernel, peer, refreshed }) => {
      await peer.set([a, b]);
      const run = await refreshed();
      assert.is(run.outcome, 'applied');
      // A watching source may have seen the change first; either way the registry holds it now.
      assert.equal(registered(kernel), lines([a, b]));
    }));

  scenarios.run();
}
