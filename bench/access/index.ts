import type { ChildProcess } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { AUDIT_PROXY, runAuditProxy } from './audit-proxy.js';
import { DAEMON_NODE_FLAGS, machine, notMeasured, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';
import { FANOUT, runFanout } from './fanout.js';

const INSTANCES = Number(process.env.BENCH_INSTANCES ?? 20_000);
const APPLICATIONS = 200;
const GRANTED = 20;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS_PER_ROUND = 10;
const CONCURRENCY = 64;
const FILTER: FigureSpec = { name: 'access-filter-ratio', target: 1.0, kind: 'max' };
export const figures = [FILTER, FANOUT, AUDIT_PROXY];

const ADMIN = `Basic ${Buffer.from('admin:bench-admin').toString('base64')}`;
const SCOPED = `Basic ${Buffer.from('scoped:bench-scoped').toString('base64')}`;

/** The two access figures, then the audit trail's cost on proxied writes (audit-proxy.ts); a failure of one costs only its own. */
export async function run(): Promise<Figure[]> {
  const failed = (spec: FigureSpec) => (error: unknown): Figure[] => {
    console.log(`${spec.name}: ${error instanceof Error ? error.stack ?? error.message : String(error)}`);
    return [notMeasured(spec, error instanceof Error ? error.message.split('\n')[0]! : String(error))];
  };
  return [
    ...await runFilter().catch(failed(FILTER)),
    ...await runFanout().catch(failed(FANOUT)),
    ...await runAuditProxy().then((figure) => [figure], failed(AUDIT_PROXY)),
  ];
}

/**
 * `GET /instances` at 20,000 instances in 200 applications, for a caller granted 20 of them
 * (`access.grants`), over the same request by an admin, who sees all: showing less must not cost
 * more. Both are measured in the same daemon, in alternating rounds of 10 requests each (after a
 * warm-up that also caches both users' password checks); the figure is the scoped caller's median
 * request time over the admin's. Only `rest-api` and `basic-auth` run; the health URLs are never called.
 */
async function runFilter(): Promise<Figure[]> {
  console.log(`access: ${machine()}; ${INSTANCES} instances in ${APPLICATIONS} applications, a caller granted ${GRANTED}`);
  const config = join(tmpdir(), `vigil-bench-access-${process.pid}.yaml`);
  const granted = Array.from({ length: GRANTED }, (_, n) => `app-${n}`);
  writeFileSync(config, [
    'host: 127.0.0.1', 'port: 0', 'log-level: warn', 'plugins: [rest-api, basic-auth]',
    'basic-auth:', '  users:', '    - { username: admin, password: bench-admin, role: admin }', '    - { username: scoped, password: bench-scoped }',
    'access:', '  grants:', `    - { subjects: [user:scoped], role: viewer, applications: [${granted.join(', ')}] }`, '',
  ].join('\n'));
  const started: ChildProcess[] = [];
  try {
    const vigil = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
    started.push(vigil.child);
    await registerFleet(vigil.url);
    const agent = new Agent({ connections: 1 });
    try {
      const admin: number[] = [];
      const scoped: number[] = [];
      const expected = { admin: INSTANCES, scoped: INSTANCES * GRANTED / APPLICATIONS };
      for (const [who, auth] of [['admin', ADMIN], ['scoped', SCOPED]] as const) await timed(vigil.url, auth, agent, expected[who]);
      for (let index = 0; index < ROUNDS; index += 1) {
        const order = index % 2 === 0 ? (['admin', 'scoped'] as const) : (['scoped', 'admin'] as const);
        for (const who of order) {
          for (let n = 0; n < REQUESTS_PER_ROUND; n += 1) (who === 'admin' ? admin : scoped).push(await timed(vigil.url, who === 'admin' ? ADMIN : SCOPED, agent, expected[who]));
        }
      }
      const [a, s] = [median(admin), median(scoped)];
      console.log(`  GET /instances: admin ${round(a)} ms (${expected.admin} instances), scoped ${round(s)} ms (${expected.scoped} instances), median of ${admin.length} each`);
      return [{
        ...FILTER, value: s / a, ratio: s / a,
        baseline: `the same GET /instances by an admin in the same daemon: median ${round(a)} ms for ${expected.admin} instances; the caller granted ${GRANTED} of ${APPLICATIONS} applications: ${round(s)} ms for ${expected.scoped}`,
      }];
    } finally {
      await agent.close();
    }
  } finally {
    await Promise.all(started.map(stopProcess));
    rmSync(config, { force: true });
  }
}

async function timed(url: string, authorization: string, agent: Agent, count: number): Promise<number> {
  const start = performance.now();
  const res = await request(`${url}/instances`, { dispatcher: agent, headers: { authorization } });
  const list = (await res.body.json()) as unknown[];
  const ms = performance.now() - start;
  if (res.statusCode !== 200 || list.length !== count) throw new Error(`GET /instances: ${res.statusCode}, ${list.length} instances instead of ${count}`);
  return ms;
}

async function registerFleet(url: string): Promise<void> {
  const agent = new Agent({ connections: 16, pipelining: 4 });
  let next = 0;
  const worker = async () => {
    for (let n = next++; n < INSTANCES; n = next++) {
      const body = JSON.stringify({ name: `app-${n % APPLICATIONS}`, healthUrl: `http://10.${n >> 16}.${(n >> 8) & 255}.${n & 255}/h` });
      const res = await request(`${url}/instances`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json', authorization: ADMIN }, body });
      await res.body.dump();
      if (res.statusCode !== 201) throw new Error(`registration ${n} failed: ${res.statusCode}`);
    }
  };
  try {
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  } finally {
    await agent.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

