import * as assert from 'uvu/assert';
import type { Daemon } from '../../support/daemon-process.js';
import type { Fleet, SeenCheck } from '../../support/fleet.js';
import { eventually, type Reply } from '../../support/http.js';
import { FaultProxy } from './fault-proxy.js';
import { FAST, startNode, stopAll, type NodeOptions } from './support.js';

/**
 * Timings for the link-fault scenarios: the defaults' ratios, short enough for seconds-long
 * scenarios, long enough that a busy machine does not make a healthy node drop out (a node slower
 * than 0.8 × heartbeat-ttl rightly steps back, and would blur what the scenario measures).
 */
export const LINK = {
  cluster: { 'heartbeat-interval': '300ms', 'heartbeat-ttl': '1500ms', 'command-timeout': '800ms' },
  monitor: { ...FAST.monitor, 'status-interval': '1s', 'status-lifetime': '800ms', 'default-timeout': '2s' },
} as const;

/** What a node logs when its place in the cluster lapsed, and when it has it again. */
export const LAPSED = /has not renewed its place in the cluster/;
export const RENEWED = /renewed its place in the cluster again/;

export interface ProxiedCluster {
  readonly nodes: Daemon[];
  readonly proxies: FaultProxy[];
}

/** `count` nodes (n1, n2, ...), each reaching Redis through a fault proxy of its own. */
export async function startProxiedNodes(count: number, redisPort: number, options: Omit<NodeOptions, 'redisUrl'>): Promise<ProxiedCluster> {
  const nodes: Daemon[] = [];
  const proxies: FaultProxy[] = [];
  try {
    for (let n = 1; n <= count; n += 1) {
      const proxy = await FaultProxy.start(redisPort);
      proxies.push(proxy);
      nodes.push(await startNode(`n${n}`, { ...options, redisUrl: proxy.url }));
    }
  } catch (error) {
    await stopAll(nodes);
    await Promise.all(proxies.map((proxy) => proxy.close()));
    throw error;
  }
  return { nodes, proxies };
}

/** Log lines printed since `mark` (a count of lines) that match `pattern`. */
export function linesSince(node: Daemon, mark: number, pattern: RegExp): string[] {
  return node.logs().slice(mark).filter((line) => pattern.test(line));
}

/** A refused write: 503, Retry-After, and the contract's JSON error naming Redis. */
export function assertRefused(reply: Reply, what: string): void {
  assert.is(reply.status, 503, `${what}: ${reply.status} ${reply.text}`);
  assert.match(reply.headers.get('retry-after') ?? '', /^\d+$/, `${what}: Retry-After`);
  const body = reply.json as { status: number; error: string; message: string };
  assert.is(body.status, 503, what);
  assert.is(body.error, 'Service Unavailable', what);
  assert.match(body.message, /Redis/, `${what}: the error names Redis: ${body.message}`);
}

/** Waits until each of `ks` was checked since `since`; returns the node of each one's latest check. */
export async function checkers(fleet: Fleet, ks: readonly number[], since: number, what: string, where: (check: SeenCheck) => boolean = () => true, timeoutMs = 15_000): Promise<Map<number, string>> {
  await eventually(() => ks.every((k) => fleet.checksSince(since).get(k)?.some(where)), what, timeoutMs);
  return new Map(ks.map((k) => [k, fleet.checksSince(since).get(k)!.filter(where).at(-1)!.node]));
}

/**
 * How many checks `from` made of instance `k` in [since, until) after `to` first checked it
 * there: a handover from one node to another leaves at most the one check the old owner had
 * already begun (or that fell due as it learnt), so two nodes never check one instance for longer
 * than one interval.
 */
export function checksAfterHandover(fleet: Fleet, k: number, from: string, to: string, since: number, until = Infinity): number {
  const checks = fleet.checksOf(k).filter((check) => check.at >= since && check.at < until);
  const first = checks.findIndex((check) => check.node === to);
  return first < 0 ? 0 : checks.slice(first).filter((check) => check.node === from).length;
}

/** Instance k's checkers in [since, until), in order, for a diagnosis. */
export function checkTrail(fleet: Fleet, k: number, since: number, until = Infinity): string {
  return fleet.checksOf(k).filter((check) => check.at >= since && check.at < until).map((check) => `${check.node}@${check.at - since}`).join(' ');
}

/** When a node logged `line` (its text format starts with an ISO timestamp; one clock on this machine). */
export function loggedAt(line: string): number {
  const at = Date.parse(line.slice(0, line.indexOf(' ')));
  if (Number.isNaN(at)) throw new Error(`no timestamp in the log line: ${line}`);
  return at;
}
