import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './chromium.js';
import { ACTUATOR_V3, FakeActuator } from './fake-actuator.js';
import { FakeBoot } from './fake-boot/index.js';
import { shootViews } from './screenshot-views.js';
import { addFilters, startNotifyReceivers } from './notifications-shot.js';
import { repoRoot } from './paths.js';

/**
 * `npm run screenshots`: the dashboard's pages as docs/web-ui.md (and the README's tour) shows them, in docs/screenshots.
 *
 * The real daemon (`bin/vigil.js`, default plugins, fast health polling) runs in its own process;
 * a small fleet of fake Spring Boot actuators (real `node:http` servers) registers with it, some
 * UP, one turning DOWN, one unreachable (OFFLINE). Each page is shot at 1280×800 in the light
 * theme, then the same page, unchanged, in the dark one. Not a test: nothing is asserted beyond
 * "the page showed what it was waited for".
 */

const OUT = join(repoRoot, 'docs', 'screenshots');
const VIEWPORT = { width: 1280, height: 800 };
const SCHEMES = ['light', 'dark'] as const;
/** The metrics chart samples every 2 s; wait for this many points so the line has a shape. */
const CHART_SAMPLES = 10;

interface Member {
  readonly app: string;
  /** Shown as the instance's service URL (a label in lists; Vigil never calls it). */
  readonly host: string;
  readonly version: string;
  readonly zone: string;
  readonly health: 'UP' | 'DOWN';
  /** A full Spring Boot 3 service (every actuator endpoint, test/support/fake-boot) rather than a few views. */
  readonly boot?: true;
  /** Metadata `group`: the applications list groups by it. */
  readonly group?: string;
}

const FLEET: readonly Member[] = [
  { app: 'billing', host: 'billing-1.prod.example', version: '3.1.4', zone: 'eu-west-1a', health: 'UP', boot: true, group: 'commerce' },
  { app: 'billing', host: 'billing-2.prod.example', version: '3.1.4', zone: 'eu-west-1b', health: 'UP', boot: true, group: 'commerce' },
  { app: 'shop', host: 'shop-1.prod.example', version: '2.8.0', zone: 'eu-west-1a', health: 'UP', group: 'commerce' },
  { app: 'shop', host: 'shop-2.prod.example', version: '2.8.0', zone: 'eu-west-1b', health: 'UP', group: 'commerce' },
  // Registers UP and turns DOWN while the screenshots are prepared, so the journal shows both.
  { app: 'shop', host: 'shop-3.prod.example', version: '2.8.0', zone: 'eu-west-1c', health: 'UP', group: 'commerce' },
  { app: 'gateway', host: 'gateway-1.prod.example', version: '1.12.2', zone: 'eu-west-1a', health: 'UP', group: 'edge' },
  { app: 'mailer', host: 'mailer-1.prod.example', version: '0.9.7', zone: 'eu-west-1b', health: 'DOWN' },
];

async function main(): Promise<void> {
  const fakes: FakeActuator[] = [];
  let daemon: ChildProcess | undefined;
  let browser: Browser | undefined;
  const notify = await startNotifyReceivers();
  try {
    const started = await startDaemon(notify.config);
    daemon = started.child;
    const url = started.url;
    const ids: string[] = [];
    for (const member of FLEET) {
      const fake = member.boot ? await demoBoot(member) : await demoActuator(member);
      fakes.push(fake);
      ids.push(await register(url, {
        ...fake.registration(member.app),
        serviceUrl: `http://${member.host}:8080/`,
        metadata: { 'tags.env': 'prod', 'tags.zone': member.zone, 'user.name': 'actuator', 'user.password': 'not-shown', ...(member.group ? { group: member.group } : {}) },
      }));
    }
    // Nobody listens on this port: connection refused, so the monitor reports OFFLINE.
    const closedPort = await freePort();
    const offline = await register(url, {
      name: 'inventory', healthUrl: `http://127.0.0.1:${closedPort}/actuator/health`, managementUrl: `http://127.0.0.1:${closedPort}/actuator`,
      serviceUrl: 'http://inventory-1.prod.example:8080/', metadata: { 'tags.env': 'prod', 'tags.zone': 'eu-west-1c' },
    });
    // One instance that came and went, for the journal.
    const gone = await register(url, { name: 'shop', healthUrl: `http://127.0.0.1:${closedPort}/old/actuator/health`, serviceUrl: 'http://shop-0.prod.example:8080/' });

    const expected = new Map<string, string>(FLEET.map((member, index) => [ids[index]!, member.health]));
    expected.set(offline, 'OFFLINE');
    expected.set(gone, 'OFFLINE');
    await settled(url, expected);
    await fetch(`${url}/instances/${gone}`, { method: 'DELETE' });
    expected.delete(gone);
    const shop3 = ids[4]!;
    fakes[4]!.setHealth(503, downHealth('redis', 'Unable to connect to Redis; nested exception is io.lettuce.core.RedisConnectionException'));
    expected.set(shop3, 'DOWN');
    await settled(url, expected);

    mkdirSync(OUT, { recursive: true });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: VIEWPORT, colorScheme: 'light', locale: 'en-GB', timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    const billing = ids[0]!;

    await open(page, `${url}/`, '.instance-row >> nth=7');
    await shoot(page, 'applications');

    await open(page, `${url}/#/instances/${billing}`, '.health-tree');
    await shoot(page, 'instance-overview');

    await open(page, `${url}/#/instances/${billing}/metrics`, '.pick-list button');
    await page.getByRole('button', { name: 'jvm.memory.used', exact: true }).click();
    await page.getByText(`${CHART_SAMPLES} samples`).waitFor({ timeout: (CHART_SAMPLES + 5) * 2000 });
    await shoot(page, 'instance-metrics');

    await open(page, `${url}/#/instances/${billing}/loggers`, '.logger-row');
    await shoot(page, 'instance-loggers');

    await open(page, `${url}/#/journal`, '.event-row[data-type=STATUS_CHANGED]');
    await page.locator('.event-row[data-type=STATUS_CHANGED]').first().click();
    await page.locator('.event-detail-panel').waitFor();
    await shoot(page, 'journal');

    await open(page, `${url}/#/wallboard`, '.tile >> nth=4');
    await shoot(page, 'wallboard');

    await shootViews(page, url, billing, { open, shoot });
    await addFilters(url);
    await open(page, `${url}/#/notifications`, '.filter-row >> nth=1');
    await shoot(page, 'notifications');
    await context.close();
  } finally {
    await browser?.close();
    if (daemon) await stop(daemon);
    await Promise.all(fakes.map((fake) => fake.close()));
    await notify.close();
  }
}

/** Navigates (hash routes re-render in place) and waits for what the page must show. */
async function open(page: Page, url: string, ready: string): Promise<void> {
  await page.emulateMedia({ colorScheme: 'light' });
  await page.goto(url);
  await page.locator('[data-connection=live]').waitFor();
  await page.locator(ready).first().waitFor();
}

/** The viewport, light then dark, with no hover or focus ring left over. */
async function shoot(page: Page, name: string): Promise<void> {
  await page.mouse.move(VIEWPORT.width - 1, VIEWPORT.height - 1);
  await page.evaluate('document.activeElement?.blur()');
  for (const scheme of SCHEMES) {
    await page.emulateMedia({ colorScheme: scheme });
    // Two frames: the new colours are applied and painted.
    await page.evaluate('new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)))');
    const file = join(OUT, `${name}-${scheme}.png`);
    await page.screenshot({ path: file });
    console.log(`${file} (${Math.round(statSync(file).size / 1024)} KiB)`);
  }
}

const infoOf = (member: Member) => ({
  build: { artifact: member.app, name: member.app, group: 'com.example', version: member.version, time: '2025-06-02T09:14:27.000Z' },
  git: { branch: 'main', commit: { id: 'a3f91c2', time: '2025-06-02T08:51:03Z' } },
  java: { version: '21.0.3', vendor: { name: 'Eclipse Adoptium' } },
  process: { pid: 4242 },
});

/** A full Spring Boot 3 service (every view of the dashboard), with the demo's richer logger list. */
async function demoBoot(member: Member): Promise<FakeActuator> {
  const boot = await FakeBoot.start({ info: infoOf(member), health: upHealth(), logLines: 2500 });
  boot.actuator.on('GET', '/loggers', { json: loggers(member.app), contentType: ACTUATOR_V3 });
  return boot.actuator;
}

/** A fake actuator with realistic answers: health components, build info, metrics and loggers. */
async function demoActuator(member: Member): Promise<FakeActuator> {
  const views = ['health', 'info', 'metrics', 'loggers'];
  const fake = await FakeActuator.start({ links: views, health: upHealth(), info: infoOf(member) });
  if (member.health === 'DOWN') fake.setHealth(503, downHealth('db', 'HikariPool-1 - Connection is not available, request timed out after 30000ms.'));
  addMetrics(fake);
  fake.on('GET', '/loggers', { json: loggers(member.app), contentType: ACTUATOR_V3 });
  return fake;
}

function upHealth(): unknown {
  return {
    status: 'UP',
    components: {
      db: { status: 'UP', details: { database: 'PostgreSQL', validationQuery: 'isValid()' } },
      diskSpace: { status: 'UP', details: { total: 107_374_182_400, free: 61_203_283_968, threshold: 10_485_760, path: '/srv/app/.', exists: true } },
      ping: { status: 'UP' },
      redis: { status: 'UP', details: { version: '7.2.4' } },
    },
  };
}

function downHealth(component: string, error: string): unknown {
  const health = upHealth() as { components: Record<string, unknown> };
  return { status: 'DOWN', components: { ...health.components, [component]: { status: 'DOWN', details: { error } } } };
}

const METRICS: Readonly<Record<string, { unit: string | null; description: string; value: (n: number) => Record<string, number> }>> = {
  // Heap use climbing between collections: a sawtooth, one step per request.
  'jvm.memory.used': { unit: 'bytes', description: 'The amount of used memory', value: (n) => ({ VALUE: 2 ** 20 * (182 + ((n * 23) % 160) + 9 * Math.sin(n)) }) },
  'jvm.threads.live': { unit: 'threads', description: 'The current number of live threads including both daemon and non-daemon threads', value: (n) => ({ VALUE: 41 + (n % 3) }) },
  'process.cpu.usage': { unit: null, description: 'The "recent cpu usage" for the Java Virtual Machine process', value: (n) => ({ VALUE: 0.12 + 0.08 * Math.abs(Math.sin(n / 2)) }) },
  'http.server.requests': { unit: 'seconds', description: 'Duration of HTTP server request handling', value: (n) => ({ COUNT: 18_240 + 37 * n, TOTAL_TIME: 912.4 + 1.9 * n, MAX: 0.184 }) },
  'hikaricp.connections.active': { unit: null, description: 'Active connections', value: (n) => ({ VALUE: 2 + (n % 4) }) },
  'system.load.average.1m': { unit: null, description: 'The sum of the number of runnable entities queued to available processors', value: (n) => ({ VALUE: 0.6 + 0.3 * Math.sin(n / 3) }) },
};

function addMetrics(fake: FakeActuator): void {
  fake.on('GET', '/metrics', { json: { names: Object.keys(METRICS) }, contentType: ACTUATOR_V3 });
  for (const [name, metric] of Object.entries(METRICS)) {
    let calls = 0;
    fake.on('GET', `/metrics/${name}`, {
      handler: (_req, res) => {
        calls += 1;
        const measurements = Object.entries(metric.value(calls)).map(([statistic, value]) => ({ statistic, value }));
        res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end(JSON.stringify({
          name, description: metric.description, baseUnit: metric.unit, measurements,
          availableTags: [{ tag: 'area', values: ['heap', 'nonheap'] }, { tag: 'id', values: ['G1 Eden Space', 'G1 Old Gen', 'Metaspace'] }],
        }));
      },
    });
  }
}

function loggers(app: string): unknown {
  const levels = ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'];
  const entry = (configured: string | null, effective: string) => ({ configuredLevel: configured, effectiveLevel: effective });
  return {
    levels,
    loggers: {
      ROOT: entry('INFO', 'INFO'),
      com: entry(null, 'INFO'),
      'com.example': entry(null, 'INFO'),
      [`com.example.${app}`]: entry('DEBUG', 'DEBUG'),
      [`com.example.${app}.api.InvoiceController`]: entry(null, 'DEBUG'),
      [`com.example.${app}.payments.PaymentClient`]: entry('TRACE', 'TRACE'),
      [`com.example.${app}.payments.RetryPolicy`]: entry(null, 'TRACE'),
      'com.zaxxer.hikari': entry('WARN', 'WARN'),
      'com.zaxxer.hikari.pool.HikariPool': entry(null, 'WARN'),
      'io.lettuce.core': entry(null, 'INFO'),
      'org.apache.catalina.core.StandardService': entry(null, 'INFO'),
      'org.hibernate.SQL': entry(null, 'INFO'),
      'org.springframework': entry(null, 'INFO'),
      'org.springframework.boot.actuate': entry(null, 'INFO'),
      'org.springframework.web.servlet.DispatcherServlet': entry(null, 'INFO'),
      'reactor.netty.http.client': entry('ERROR', 'ERROR'),
    },
  };
}



async function register(url: string, body: Record<string, unknown>): Promise<string> {
  const res = await fetch(`${url}/instances`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { id: string }).id;
}

/** Waits until every instance has its expected status, and the reachable ones their endpoints and info. */
async function settled(url: string, expected: ReadonlyMap<string, string>): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const instances = (await (await fetch(`${url}/instances`)).json()) as Array<{ id: string; statusInfo: { status: string }; endpoints: unknown[]; buildVersion: string | null }>;
    const pending = [...expected].filter(([id, status]) => {
      const instance = instances.find((candidate) => candidate.id === id);
      if (!instance || instance.statusInfo.status !== status) return true;
      return status !== 'OFFLINE' && (instance.endpoints.length < 2 || !instance.buildVersion);
    });
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new Error(`instances not settled: ${pending.map(([id, status]) => `${id} ${status}`).join(', ')}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** A port that was free a moment ago and on which nothing listens now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** `bin/vigil.js` with the default plugins (and `extra` config) on a free port, health checked every second. */
function startDaemon(extra: Record<string, unknown>): Promise<{ child: ChildProcess; url: string }> {
  const config = join(tmpdir(), `vigil-screenshots-${process.pid}.yaml`);
  writeFileSync(config, JSON.stringify({ host: '127.0.0.1', port: 0, 'log-level': 'info', monitor: { 'status-interval': '1s', 'status-lifetime': 0 }, ...extra }));
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--config', config], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  child.once('exit', () => rmSync(config, { force: true }));
  return new Promise((resolve, reject) => {
    let output = '';
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      const match = /listening on (http:\/\/[^\s"',]+)/.exec(output);
      if (!match) return;
      // Keep draining, so a chatty daemon never blocks on a full pipe.
      child.stdout!.off('data', onData).resume();
      child.stderr!.off('data', onData).resume();
      resolve({ child, url: match[1]! });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => reject(new Error(`the daemon exited (${code}) before listening:\n${output}`)));
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

await main();
