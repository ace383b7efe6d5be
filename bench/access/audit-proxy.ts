import autocannon from 'autocannon';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const CONNECTIONS = 32;
const DURATION_S = Number(process.env.BENCH_DURATION ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 8);
const BODY = '{"configuredLevel":"DEBUG"}';
export const AUDIT_PROXY: FigureSpec = { name: 'audit-proxy-ratio', target: 0.9, kind: 'min' };

/** A proxy deployment, with or without the audit trail (and its file). */
async function startDaemon(instance: string, dir: string, audited: boolean): Promise<{ child: ChildProcess; loggers: string }> {
  const config = join(dir, `vigil-${audited ? 'audit' : 'plain'}.yaml`);
  writeFileSync(config, [
    'host: 127.0.0.1', 'port: 0', 'log-level: warn',
    `plugins: [rest-api, proxy, monitor, detect-index${audited ? ', audit' : ''}]`,
    ...(audited ? ['audit:', `  file: ${join(dir, 'audit.log')}`] : []), '',
  ].join('\n'));
  const { child, url } = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config, '--log-level', 'info']);
  const registered = await fetch(`${url}/instances`, {
    method: 'POST', headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', healthUrl: `${instance}/actuator/health`, managementUrl: `${instance}/actuator` }),
  });
  const { id } = (await registered.json()) as { id: string };
  const loggers = `${url}/instances/${id}/actuator/loggers/ROOT`;
  // Detection is the monitor's: a benchmark may poll for it.
  for (let tries = 0; tries < 150; tries += 1) {
    const res = await fetch(loggers, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
    await res.arrayBuffer();
    if (res.status === 204) return { child, loggers };
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`the loggers endpoint of ${id} was not detected`);
}

async function load(url: string): Promise<number> {
  const result = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections: CONNECTIONS, duration: DURATION_S });
  if (result.non2xx > 0 || result.errors > 0 || result.timeouts > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`);
  return result.requests.average;
}

/**
 * Proxied `POST /actuator/loggers/ROOT` throughput with `audit` (and `audit.file`) over the same
 * daemon without it, both running in the same run against one fake instance (its own process),
 * in interleaved rounds whose order flips each time; the figure is the median of the per-round ratios.
 */
export async function runAuditProxy(): Promise<Figure> {
  console.log(`audit: ${machine()}; ${CONNECTIONS} connections, ${ROUNDS} rounds of ${DURATION_S} s, proxied POST loggers`);
  const dir = mkdtempSync(join(tmpdir(), 'vigil-bench-audit-'));
  const started: ChildProcess[] = [];
  try {
    const instance = await startProcess([join(root, 'dist', 'bench', 'access', 'loggers-instance.js')]);
    started.push(instance.child);
    const plain = await startDaemon(instance.url, dir, false);
    started.push(plain.child);
    const audited = await startDaemon(instance.url, dir, true);
    started.push(audited.child);
    await load(plain.loggers);
    await load(audited.loggers);
    const ratios: number[] = [];
    const rps = { plain: [] as number[], audited: [] as number[] };
    for (let round_ = 0; round_ < ROUNDS; round_ += 1) {
      const order = round_ % 2 === 0 ? (['plain', 'audited'] as const) : (['audited', 'plain'] as const);
      for (const which of order) rps[which].push(await load(which === 'plain' ? plain.loggers : audited.loggers));
      ratios.push(rps.audited[round_]! / rps.plain[round_]!);
      console.log(`  round ${round_ + 1}: without audit ${Math.round(rps.plain[round_]!)} req/s, with audit and its file ${Math.round(rps.audited[round_]!)} req/s; ratio ${round(ratios[round_]!)}`);
    }
    const ratio = median(ratios);
    return { ...AUDIT_PROXY, value: ratio, baseline: `without audit ${Math.round(median(rps.plain))} req/s; with audit ${Math.round(median(rps.audited))} req/s`, ratio };
  } finally {
    await Promise.all(started.map(stopProcess));
    rmSync(dir, { recursive: true, force: true });
  }
}
