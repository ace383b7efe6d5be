import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call, eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';

const { test, path: prometheus } = requireBinary('prometheus', 'apt-get install prometheus');

const ADMIN = { username: 'admin', password: 'Adm1n-prom-test' };
const TOKEN = 'prometheus-read-only-9c1e';

interface Target {
  readonly labels: Record<string, string>;
  readonly scrapeUrl: string;
  readonly health: string;
  readonly lastError: string;
  readonly scrapePool: string;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** What a user writes (docs/operating.md, "Prometheus service discovery"): targets from /prometheus/sd, the application label relabelled, Vigil itself scraped with the token. */
function prometheusConfig(vigil: URL): string {
  return `global:
  scrape_interval: 1s
  scrape_timeout: 900ms
scrape_configs:
  - job_name: vigil-apps
    http_sd_configs:
      - url: ${vigil.origin}/prometheus/sd
        refresh_interval: 1s
        # type spelled out: Prometheus 2.42's http_sd sends the credentials without it otherwise.
        authorization: { type: Bearer, credentials: ${TOKEN} }
    relabel_configs:
      - { source_labels: [__meta_vigil_status], regex: OFFLINE, action: drop }
      - { source_labels: [__meta_vigil_application], target_label: application }
      - { source_labels: [__meta_vigil_instance_id], target_label: instance_id }
  - job_name: vigil
    metrics_path: /metrics
    authorization: { credentials: ${TOKEN} }
    static_configs:
      - targets: ['${vigil.host}']
`;
}

function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

test('Prometheus discovers the instances through /prometheus/sd, scrapes them, and scrapes Vigil with a metrics token', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'monitor', 'detect-index', 'metrics', 'prometheus-sd', 'basic-auth'],
    config: {
      monitor: { 'status-interval': '1s', 'status-lifetime': '500ms' },
      'basic-auth': { users: [ADMIN], tokens: [{ name: 'prometheus', token: TOKEN, role: 'metrics' }] },
    },
  });
  const fakes = await Promise.all([FakeActuator.start({ links: ['health', 'info', 'prometheus'] }), FakeActuator.start({ links: ['health', 'info', 'prometheus'] })]);
  const folder = mkdtempSync(join(tmpdir(), 'vigil-prometheus-'));
  let child: ChildProcess | undefined;
  let output = '';
  try {
    const authorization = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;
    const ids: string[] = [];
    for (const [index, fake] of fakes.entries()) {
      fake.on('GET', '/prometheus', { body: `# TYPE demo_requests_total counter\ndemo_requests_total ${index + 1}\n`, contentType: 'text/plain; version=0.0.4; charset=utf-8' });
      const reply = await call('POST', `${tk.url}/instances`, { json: fake.registration(index === 0 ? 'shop' : 'billing'), headers: { authorization } });
      assert.is(reply.status, 201, reply.text);
      const { id } = reply.json as { id: string };
      ids.push(id);
      await tk.waitForEvent((event) => event.instance === id && event.type === 'ENDPOINTS_DETECTED', `endpoints of ${id}`);
    }
    // The metrics token reads the targets and the metrics, and nothing else.
    assert.is((await call('GET', `${tk.url}/instances`, { headers: { authorization: `Bearer ${TOKEN}` } })).status, 403);

    const port = await freePort();
    writeFileSync(join(folder, 'prometheus.yml'), prometheusConfig(new URL(tk.url)));
    child = spawn(prometheus, [
      `--config.file=${join(folder, 'prometheus.yml')}`, `--storage.tsdb.path=${join(folder, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`, '--log.level=warn',
    ], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr!.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    const api = `http://127.0.0.1:${port}/api/v1`;

    // Prometheus is another process: its API is polled until every target has been scraped.
    const targets = await eventually(async () => {
      const reply = await fetch(`${api}/targets?state=active`).catch(() => undefined);
      if (!reply?.ok) return undefined;
      const active = ((await reply.json()) as { data: { activeTargets: Target[] } }).data.activeTargets;
      return active.length === 3 && active.every((target) => target.health === 'up') ? active : undefined;
    }, 'three targets up in Prometheus', 30_000).catch((error: unknown) => {
      throw new Error(`${(error as Error).message}\nprometheus output:\n${output}`);
    });
    const apps = targets.filter((target) => target.scrapePool === 'vigil-apps').sort((a, b) => a.labels.application!.localeCompare(b.labels.application!));
    assert.equal(apps.map((target) => [target.labels.application, target.labels.instance_id, target.scrapeUrl]), [
      ['billing', ids[1], `${fakes[1]!.managementUrl}/prometheus`],
      ['shop', ids[0], `${fakes[0]!.managementUrl}/prometheus`],
    ]);
    const vigil = targets.find((target) => target.scrapePool === 'vigil')!;
    assert.is(vigil.scrapeUrl, `${new URL(tk.url).origin}/metrics`);
    assert.is(vigil.lastError, '');

    // Both scrapes landed: the instances' own series, and Vigil's, relabelled as configured.
    const query = async (promql: string) => {
      const reply = await fetch(`${api}/query?query=${encodeURIComponent(promql)}`);
      return ((await reply.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } }).data.result;
    };
    const demo = await eventually(async () => {
      const result = await query('demo_requests_total');
      return result.length === 2 ? result : undefined;
    }, 'the instances\' series', 15_000);
    assert.equal(demo.map((series) => [series.metric.application, series.value[1]]).sort(), [['billing', '2'], ['shop', '1']]);
    const up = await eventually(async () => (await query('sum(vigil_instances{status="UP"})'))[0], 'Vigil\'s series', 15_000);
    assert.is(up.value[1], '2');
    assert.ok(fakes.every((fake) => fake.requestsTo('/prometheus').length > 0), 'each instance was scraped');
  } finally {
    if (child) await stopProcess(child);
    rmSync(folder, { recursive: true, force: true });
    await tk.stop();
    await Promise.all(fakes.map((fake) => fake.close()));
  }
});

test.run();
