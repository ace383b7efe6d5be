import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { PeerInstance } from '../../support/discovery-scenarios.js';
import { listenLocal, type LocalServer } from '../../support/local-server.js';

export interface ConsulInstance {
  readonly service: string;
  readonly id: string;
  readonly node: string;
  readonly nodeAddress: string;
  /** '' to make clients fall back to the node's address, as Consul allows. */
  readonly address: string;
  readonly port: number;
  readonly meta?: Readonly<Record<string, string>>;
  readonly tags?: readonly string[];
  readonly status?: 'passing' | 'warning' | 'critical';
}

/** A scenario's instance as Consul registers it: its own node, the service address set. */
export const consulInstance = (instance: PeerInstance): ConsulInstance => ({
  service: instance.name, id: `${instance.name}-${instance.host}`, node: `node-${instance.host}`, nodeAddress: instance.host, address: instance.host, port: instance.port, meta: instance.metadata ?? {},
});

interface Waiter {
  readonly resource: string;
  readonly index: number;
  wake(): void;
}

const MAX_WAIT_MS = 600_000;

/**
 * Consul's catalog and health read API on loopback, with real blocking-query semantics
 * (https://developer.hashicorp.com/consul/api-docs/features/blocking): a request with `index`
 * is held until the resource's index passes it or `wait` (default 5 minutes, at most 10) runs
 * out, then answered with the current state and `X-Consul-Index`. Writes move the catalog's index
 * on every change (as any service write does in Consul) and a service's index when its own
 * instances change. The test can also wake every held request without a change, move the
 * indexes backwards (a restored snapshot), answer 500s, and require an ACL token.
 */
export class FakeConsul {
  #instances: ConsulInstance[] = [];
  #raft = 100;
  #catalogIndex = 100;
  readonly #serviceIndex = new Map<string, number>();
  readonly #waiters = new Set<Waiter>();
  readonly requests: { path: string; query: URLSearchParams; headers: IncomingHttpHeaders }[] = [];
  failing = false;
  token: string | undefined;
  #server: LocalServer | undefined;
  port = 0;

  static async start(): Promise<FakeConsul> {
    const fake = new FakeConsul();
    fake.#server = await listenLocal(createServer((req, res) => fake.#handle(req.url ?? '/', req.headers, res)));
    fake.port = fake.#server.port;
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Replaces the registered instances; held queries of what changed are answered. `quiet`: they are not (the test plays a lagging watch). */
  set(instances: readonly ConsulInstance[], options: { quiet?: boolean } = {}): void {
    const names = new Set([...instances, ...this.#instances].map((instance) => instance.service));
    const changed = [...names].filter((name) => JSON.stringify(this.#of(name, this.#instances)) !== JSON.stringify(this.#of(name, instances)));
    this.#instances = [...instances];
    if (changed.length === 0) return;
    this.#raft += 1;
    this.#catalogIndex = this.#raft;
    for (const name of changed) this.#serviceIndex.set(name, this.#raft);
    if (!options.quiet) this.#wake(() => true);
  }

  /** Answers every held query at once, with nothing changed: the same index comes back. */
  spurious(): void {
    this.#wake(() => true);
  }

  /** Every index goes back below what clients hold, as after a snapshot restore. */
  reset(): void {
    this.#raft = 5;
    this.#catalogIndex = 5;
    for (const name of this.#serviceIndex.keys()) this.#serviceIndex.set(name, 5);
    this.#wake(() => true);
  }

  /** Held blocking queries right now, by resource (`catalog` or a service name). */
  held(): string[] {
    return [...this.#waiters].map((waiter) => waiter.resource).sort();
  }

  close(): Promise<void> {
    this.#wake(() => true);
    return this.#server?.close() ?? Promise.resolve();
  }

  #of(name: string, instances: readonly ConsulInstance[]): ConsulInstance[] {
    return instances.filter((instance) => instance.service === name);
  }

  #wake(match: (waiter: Waiter) => boolean): void {
    for (const waiter of [...this.#waiters]) if (match(waiter)) waiter.wake();
  }

  #handle(target: string, headers: IncomingHttpHeaders, res: ServerResponse): void {
    const url = new URL(target, 'http://consul');
    this.requests.push({ path: url.pathname, query: url.searchParams, headers });
    if (this.token !== undefined && headers['x-consul-token'] !== this.token) return void res.writeHead(403).end('ACL not found');
    if (this.failing) return void res.writeHead(500).end('rpc error making call: No cluster leader');
    let resource: string;
    let answer: () => { index: number; body: unknown };
    if (url.pathname === '/v1/catalog/services') {
      resource = 'catalog';
      answer = () => ({ index: this.#catalogIndex, body: this.#catalog() });
    } else if (url.pathname.startsWith('/v1/health/service/')) {
      const name = decodeURIComponent(url.pathname.slice('/v1/health/service/'.length));
      resource = name;
      const passing = url.searchParams.has('passing') && url.searchParams.get('passing') !== 'false';
      answer = () => ({ index: this.#serviceIndex.get(name) ?? this.#catalogIndex, body: this.#health(name, passing) });
    } else {
      return void res.writeHead(404).end();
    }
    const send = () => {
      const { index, body } = answer();
      res.writeHead(200, { 'content-type': 'application/json', 'x-consul-index': String(index), 'x-consul-knownleader': 'true', 'x-consul-lastcontact': '0' });
      res.end(JSON.stringify(body));
    };
    const index = Number(url.searchParams.get('index') ?? 0);
    if (!(index > 0) || answer().index > index) return send();
    const waiter: Waiter = {
      resource,
      index,
      wake: () => {
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        send();
      },
    };
    const timer = setTimeout(waiter.wake, Math.min(parseWait(url.searchParams.get('wait')), MAX_WAIT_MS));
    res.on('close', () => {
      clearTimeout(timer);
      this.#waiters.delete(waiter);
    });
    this.#waiters.add(waiter);
  }

  #catalog(): Record<string, string[]> {
    const catalog: Record<string, string[]> = {};
    for (const instance of this.#instances) catalog[instance.service] = [...new Set([...(catalog[instance.service] ?? []), ...(instance.tags ?? [])])];
    return catalog;
  }

  #health(name: string, passing: boolean): unknown[] {
    return this.#of(name, this.#instances)
      .filter((instance) => !passing || (instance.status ?? 'passing') === 'passing')
      .map((instance) => ({
        Node: { ID: `id-${instance.node}`, Node: instance.node, Address: instance.nodeAddress, Datacenter: 'dc1', TaggedAddresses: { lan: instance.nodeAddress, wan: instance.nodeAddress }, Meta: { 'consul-network-segment': '' } },
        Service: {
          ID: instance.id, Service: instance.service, Tags: instance.tags ?? [], Address: instance.address, Port: instance.port,
          Meta: instance.meta ?? {}, Weights: { Passing: 1, Warning: 1 }, EnableTagOverride: false,
        },
        Checks: [
          { Node: instance.node, CheckID: 'serfHealth', Name: 'Serf Health Status', Status: 'passing', Notes: '', Output: 'Agent alive and reachable', ServiceID: '', ServiceName: '' },
          { Node: instance.node, CheckID: `service:${instance.id}`, Name: `Service '${instance.service}' check`, Status: instance.status ?? 'passing', Notes: '', Output: '', ServiceID: instance.id, ServiceName: instance.service },
        ],
      }));
  }
}

/** Consul's `wait`: `10s`, `5m`, `250ms`; the default is 5 minutes. */
function parseWait(value: string | null): number {
  const match = /^(\d+)(ms|s|m)$/.exec(value ?? '');
  if (!match) return 300_000;
  return Number(match[1]) * { ms: 1, s: 1000, m: 60_000 }[match[2] as 'ms' | 's' | 'm'];
}
