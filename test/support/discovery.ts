import type { DiscoveryRun } from '../../core/kits/discovery/index.js';
import type { Registration } from '../../core/domain/index.js';
import type { VigilPlugin } from '../../core/plugin-api.js';
import type { TestKernel } from '../../bin/testing.js';

/**
 * Records every `discovery.ran` of a kernel from its setup on (list `runs.plugin` first in
 * `plugins:`), so a test can await a run that may already have happened, such as the first one.
 */
export class RunLog {
  readonly runs: DiscoveryRun[] = [];
  readonly #waiters = new Set<() => void>();
  readonly plugin: VigilPlugin<never> = {
    name: 'discovery-run-log',
    configKey: null,
    setup: (ctx) => {
      ctx.bus.on('discovery.ran', (run) => {
        this.runs.push(run);
        for (const wake of [...this.#waiters]) wake();
      });
    },
  };

  /** Where "from now on" starts: pass it as `since`. */
  mark(): number {
    return this.runs.length;
  }

  /** The first run of `source` at index `since` or later that `match` accepts. */
  wait(source: string, match: (run: DiscoveryRun) => boolean, since = 0, timeoutMs = 5000): Promise<DiscoveryRun> {
    const find = () => this.runs.slice(since).find((run) => run.source === source && match(run));
    const found = find();
    if (found) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const wake = () => {
        const run = find();
        if (!run) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve(run);
      };
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`no matching run of ${source} within ${timeoutMs} ms; runs: ${JSON.stringify(this.runs.slice(since))}`));
      }, timeoutMs);
      this.#waiters.add(wake);
    });
  }

  applied(source: string, since = 0, timeoutMs?: number): Promise<DiscoveryRun> {
    return this.wait(source, (run) => run.outcome === 'applied', since, timeoutMs);
  }

  failed(source: string, since = 0, timeoutMs?: number): Promise<DiscoveryRun> {
    return this.wait(source, (run) => run.outcome === 'failed', since, timeoutMs);
  }
}

/** Registered instances as `name healthUrl` lines, sorted: the comparison most scenarios need. */
export function registered(kernel: TestKernel): string[] {
  return kernel.kernel.registry.list().map((instance) => `${instance.registration!.name} ${instance.registration!.healthUrl}`).sort();
}

/**
 * The registration of the registered instance with this health URL, as its fields read (the
 * registry may hold it packed, its URLs built when read: a plain copy compares as a value).
 */
export function registrationAt(kernel: TestKernel, healthUrl: string): Registration | undefined {
  const held = kernel.kernel.registry.list().find((instance) => instance.registration?.healthUrl === healthUrl)?.registration;
  return held ? { name: held.name, managementUrl: held.managementUrl, healthUrl: held.healthUrl, serviceUrl: held.serviceUrl, source: held.source, metadata: held.metadata } : undefined;
}

/** `POST /applications`, asserting its 200. */
export async function refresh(kernel: TestKernel): Promise<void> {
  const res = await fetch(`${kernel.url}/applications`, { method: 'POST' });
  if (res.status !== 200) throw new Error(`POST /applications answered ${res.status}`);
  await res.arrayBuffer();
}

/** Registers over HTTP (source http-api), asserting the 201. */
export async function registerOverHttp(kernel: TestKernel, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${kernel.url}/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`POST /instances answered ${res.status}: ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** The types of the events recorded since `seq`, as `TYPE name` lines in order. */
export function eventsSince(kernel: TestKernel, seq: number): string[] {
  return kernel.kernel.registry.eventsSince(seq).map((event) => `${event.type} ${kernel.kernel.registry.get(event.instance)?.registration?.name ?? event.instance}`);
}
