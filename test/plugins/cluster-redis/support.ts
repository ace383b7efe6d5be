import * as assert from 'uvu/assert';
import { startDaemon, type Daemon } from '../../support/daemon-process.js';
import { call, eventually } from '../../support/http.js';

/** Short intervals so a scenario takes seconds; the ratios between them are the defaults'. */
export const FAST = {
  monitor: { 'status-interval': '500ms', 'status-lifetime': '400ms', 'info-interval': '2s', 'info-lifetime': '1s', 'default-timeout': '400ms' },
  cluster: { 'heartbeat-interval': '200ms', 'heartbeat-ttl': '800ms', 'command-timeout': '500ms' },
} as const;

export const PLUGINS = ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'probes', 'metrics', 'cluster-redis'];

export interface NodeOptions {
  readonly redisUrl?: string;
  readonly sentinel?: Record<string, unknown>;
  readonly plugins?: readonly string[];
  readonly config?: Record<string, unknown>;
  readonly cluster?: Record<string, unknown>;
}

/** One real daemon (`bin/vigil.js`) in the cluster, as node `nodeId`. */
export function startNode(nodeId: string, options: NodeOptions): Promise<Daemon> {
  return startDaemon({
    'log-level': 'info',
    plugins: options.plugins ?? PLUGINS,
    monitor: FAST.monitor,
    ...options.config,
    'cluster-redis': {
      ...(options.sentinel ? { sentinel: options.sentinel } : { url: options.redisUrl }),
      'node-id': nodeId,
      ...FAST.cluster,
      ...options.cluster,
    },
  });
}

export async function startNodes(count: number, options: NodeOptions): Promise<Daemon[]> {
  const nodes: Daemon[] = [];
  try {
    // One after the other: each joins a cluster the previous ones already formed.
    for (let n = 1; n <= count; n += 1) nodes.push(await startNode(`n${n}`, options));
  } catch (error) {
    // The test never gets the ones already running: left alone, they would keep its runner from exiting.
    await stopAll(nodes);
    throw error;
  }
  return nodes;
}

export interface WireEvent {
  readonly instance: string;
  readonly version: number;
  readonly type: string;
  readonly timestamp: string;
  readonly statusInfo?: { readonly status: string };
}

export async function eventsOf(node: Daemon): Promise<WireEvent[]> {
  const reply = await call('GET', `${node.url}/instances/events`);
  assert.is(reply.status, 200);
  return reply.json as WireEvent[];
}

export async function instancesOf(node: Daemon): Promise<{ id: string; version: number; statusInfo: { status: string } }[]> {
  return (await call('GET', `${node.url}/instances`)).json as { id: string; version: number; statusInfo: { status: string } }[];
}

export async function register(node: Daemon, body: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${node.url}/instances`, { json: body });
  assert.is(reply.status, 201, reply.text);
  return (reply.json as { id: string }).id;
}

/**
 * Every node's event list and instance versions are the same (they converge as the feed
 * delivers; waited for, not timed). Returns the agreed event list.
 */
export async function converged(nodes: readonly Daemon[], timeoutMs = 10_000): Promise<WireEvent[]> {
  let lists: string[] = [];
  let versions: string[] = [];
  await eventually(async () => {
    lists = await Promise.all(nodes.map(async (node) => JSON.stringify(await eventsOf(node))));
    versions = await Promise.all(nodes.map(async (node) => JSON.stringify((await instancesOf(node)).map((i) => [i.id, i.version]).sort())));
    return lists.every((list) => list === lists[0]) && versions.every((list) => list === versions[0]);
  }, 'every node holding the same events and versions', timeoutMs).catch((error: Error) => {
    const shown = nodes.map((node, index) => `${node.url}: ${(JSON.parse(lists[index] ?? '[]') as unknown[]).length} events, versions ${versions[index]?.slice(0, 300)}`);
    throw new Error(`${error.message}\n${shown.join('\n')}`);
  });
  return JSON.parse(lists[0]!) as WireEvent[];
}

/** No event twice, and per instance versions strictly increasing in the list. */
export function assertNoDuplicates(events: readonly WireEvent[]): void {
  const seen = new Set<string>();
  const last = new Map<string, number>();
  for (const event of events) {
    const key = `${event.instance}@${event.version}`;
    assert.not.ok(seen.has(key), `event ${key} appears twice`);
    seen.add(key);
    assert.ok((last.get(event.instance) ?? -1) < event.version, `versions of ${event.instance} go backwards at ${event.version}`);
    last.set(event.instance, event.version);
  }
}

/** The statuses one instance went through, in order, from the event list. */
export function statusesOf(events: readonly WireEvent[], id: string): string[] {
  return events.filter((e) => e.instance === id && e.type === 'STATUS_CHANGED').map((e) => e.statusInfo!.status);
}

export async function stopAll(nodes: readonly (Daemon | undefined)[]): Promise<void> {
  await Promise.all(nodes.map((node) => node?.stop()));
}

/**
 * Runs `scenario`; if it fails, prints what a failure under load is diagnosed from before the
 * error is reported: `more()` (what the test itself saw), the event list of every node still
 * running, and every node's log lines (killed ones too).
 */
export async function withDiagnosis(nodes: readonly Daemon[], scenario: () => Promise<void>, more: () => string = () => ''): Promise<void> {
  try {
    await scenario();
  } catch (error) {
    const parts = ['--- diagnosis of the failure below', more()];
    for (const [index, node] of nodes.entries()) {
      const alive = node.child.exitCode === null && node.child.signalCode === null;
      const events = alive ? await eventsOf(node).then((list) => JSON.stringify(list), (problem: unknown) => String(problem)) : '(not running)';
      parts.push(`--- node ${index + 1} (${node.url}) events: ${events}`, `--- node ${index + 1} logs:`, ...node.logs());
    }
    process.stderr.write(`${parts.filter(Boolean).join('\n')}\n`);
    throw error;
  }
}
