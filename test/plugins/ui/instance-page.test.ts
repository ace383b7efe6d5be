import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { ACTUATOR_V3 } from '../../support/fake-actuator.js';
import { eventually } from '../../support/http.js';
import { openPage, startFleet, type Fleet } from './browser-support.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { requireBinary } from '../../support/require-binary.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let fleet: Fleet;
/** The billing instance's loggers, as its actuator holds them; a POST changes them like Spring Boot does. */
const loggers: Record<string, { configuredLevel: string | null; effectiveLevel: string }> = {
  ROOT: { configuredLevel: 'INFO', effectiveLevel: 'INFO' },
  'com.example': { configuredLevel: null, effectiveLevel: 'INFO' },
  'org.hibernate': { configuredLevel: 'WARN', effectiveLevel: 'WARN' },
};

const json = (res: ServerResponse, body: unknown) => res.writeHead(200, { 'content-type': ACTUATOR_V3 }).end(JSON.stringify(body));

test.before(async () => {
  browser = await launchChromium();
  fleet = await startFleet();
  const { billing } = fleet;
  billing.on('GET', '/loggers', { handler: (_req, res) => json(res, { levels: ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'], loggers }) });
  for (const name of Object.keys(loggers)) {
    billing.on('GET', `/loggers/${name}`, { handler: (_req, res) => json(res, loggers[name]) });
    billing.on('POST', `/loggers/${name}`, {
      handler: (_req: IncomingMessage, res: ServerResponse, body: Buffer) => {
        const level = (JSON.parse(body.toString('utf8')) as { configuredLevel: string | null }).configuredLevel;
        loggers[name] = { configuredLevel: level, effectiveLevel: level ?? 'INFO' };
        res.writeHead(204).end();
      },
    });
  }
  let used = 100;
  billing.on('GET', '/metrics', { json: { names: ['process.uptime', 'jvm.memory.used'] }, contentType: ACTUATOR_V3 });
  billing.on('GET', '/metrics/jvm.memory.used', {
    handler: (_req, res) => json(res, {
      name: 'jvm.memory.used', description: 'The amount of used memory', baseUnit: 'bytes',
      measurements: [{ statistic: 'VALUE', value: (used += 1) * 1024 * 1024 }], availableTags: [{ tag: 'area', values: ['heap', 'nonheap'] }],
    }),
  });
  billing.on('GET', '/env', {
    contentType: ACTUATOR_V3,
    json: { activeProfiles: ['prod'], propertySources: [
      { name: 'server.ports', properties: { 'local.server.port': { value: 8080 } } },
      { name: 'systemEnvironment', properties: { PATH: { value: '/usr/local/bin:/usr/bin', origin: 'System Environment Property "PATH"' }, HOME: { value: '/home/app' } } },
    ] },
  });
  billing.on('GET', '/threaddump', {
    contentType: ACTUATOR_V3,
    json: { threads: [
      { threadName: 'main', threadId: 1, threadState: 'RUNNABLE', stackTrace: [{ className: 'com.example.Main', methodName: 'run', fileName: 'Main.java', lineNumber: 42 }] },
      { threadName: 'scheduler-1', threadId: 17, threadState: 'TIMED_WAITING', daemon: true, stackTrace: [] },
    ] },
  });
  // Spring MVC answers OPTIONS on every actuator endpoint; this environment is read-only (no POST).
  billing.on('OPTIONS', '/env', { status: 200, headers: { allow: 'GET,HEAD,OPTIONS' } });
  billing.on('POST', '/restart', { status: 200, json: { message: 'Restarting' }, contentType: ACTUATOR_V3 });
});

test.after(async () => {
  await browser?.close();
  await fleet?.stop();
});

test('overview: health tree, info, registration with sanitised metadata, detected endpoints; tabs for what it exposes', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.shopUp}`);
  try {
    await page.locator('.health-tree li', { hasText: 'db' }).waitFor();
    assert.is(await page.locator('.health-tree li .badge').first().textContent(), 'UP');
    assert.match(await page.locator('.health-tree').textContent() ?? '', 'PostgreSQL');
    assert.equal(await page.locator('.view-nav a').allTextContents(), ['Overview'], 'shop exposes no views beyond health and info');
    await close();

    const billing = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing}`);
    try {
      await billing.page.locator('h1', { hasText: 'billing' }).waitFor();
      assert.equal(await billing.page.locator('.view-nav a').allTextContents(), ['Overview', 'Details', 'Metrics', 'Environment', 'Loggers', 'Thread dump']);
      assert.equal(await billing.page.locator('.view-group-label').allTextContents(), ['Insights', 'Logging', 'JVM']);
      const metadata = await billing.page.getByRole('article', { name: 'Metadata' }).textContent() ?? '';
      assert.match(metadata, 'db.password******');
      assert.match(metadata, 'zoneeu-1');
      assert.not.match(await billing.page.content(), 'hunter2');
      assert.match(await billing.page.getByRole('article', { name: 'Info' }).textContent() ?? '', '3.1.4');
      assert.equal(await billing.page.locator('.endpoints b').allTextContents(), ['health', 'info', 'metrics', 'loggers', 'env', 'threaddump', 'heapdump', 'restart']);
      assert.is(await billing.page.getByRole('link', { name: 'Heap dump' }).getAttribute('href'), `/instances/${fleet.ids.billing}/actuator/heapdump`);
      assert.is(await billing.page.getByRole('button', { name: 'Shut down…' }).count(), 0, 'no shutdown endpoint, no button');
      assert.equal(billing.errors, []);
    } finally {
      await billing.close();
    }
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('loggers: searchable; a level changed in the UI reaches the instance and shows as configured', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing}/loggers`);
  try {
    await page.locator('[data-logger="com.example"]').waitFor();
    await page.getByLabel('Search loggers').fill('hibern');
    await page.locator('[data-logger="com.example"]').waitFor({ state: 'detached' });
    assert.is(await page.locator('.logger-row').count(), 1);
    await page.getByLabel('Search loggers').fill('example');

    const before = fleet.billing.requestsTo('/loggers/com.example', 'POST').length;
    await page.getByRole('group', { name: 'Level of com.example' }).getByRole('button', { name: 'DEBUG' }).click();
    const post = await eventually(() => fleet.billing.requestsTo('/loggers/com.example', 'POST')[before], 'the POST at the instance');
    assert.equal(JSON.parse(post.body.toString('utf8')), { configuredLevel: 'DEBUG' });
    assert.match(String(post.headers['content-type']), 'application/json');
    await page.locator('[data-logger="com.example"] button[aria-pressed=true]', { hasText: 'DEBUG' }).waitFor();

    await page.getByRole('group', { name: 'Level of com.example' }).getByRole('button', { name: 'reset' }).click();
    const reset = await eventually(() => fleet.billing.requestsTo('/loggers/com.example', 'POST')[before + 1], 'the reset POST');
    assert.equal(JSON.parse(reset.body.toString('utf8')), { configuredLevel: null });
    await page.locator('[data-logger="com.example"] button[aria-pressed=true]').waitFor({ state: 'detached' });
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('metrics: pick one and it is charted live from repeated samples', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing}/metrics`);
  try {
    await page.getByRole('button', { name: 'jvm.memory.used' }).click();
    await page.locator('.metric .chart figcaption', { hasText: /VALUE, 2 samples/ }).waitFor();
    assert.match(await page.locator('.chart-value').textContent() ?? '', / MiB$/);
    assert.match(await page.locator('.metric').textContent() ?? '', 'The amount of used memory');
    assert.is(await page.locator('.chart polyline').count(), 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('environment search, thread dump, and restart only after confirming', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing}/env`);
  try {
    await page.locator('.props th', { hasText: 'HOME' }).waitFor();
    await page.getByLabel('Search the environment').fill('usr/local');
    await page.locator('.props th', { hasText: 'HOME' }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('.props th').allTextContents(), ['PATH']);

    await page.getByRole('link', { name: 'Thread dump' }).click();
    await page.locator('.thread-list summary', { hasText: 'scheduler-1' }).waitFor();
    await page.locator('.thread-list summary', { hasText: 'main' }).click();
    assert.match(await page.locator('.stack').first().textContent() ?? '', 'at com.example.Main.run(Main.java:42)');

    await page.getByRole('button', { name: 'Restart…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.is(await page.getByRole('dialog').count(), 0);
    assert.is(fleet.billing.requestsTo('/restart', 'POST').length, 0, 'cancelled: nothing sent');
    await page.getByRole('button', { name: 'Restart…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Restart' }).click();
    await page.getByRole('status').filter({ hasText: 'Restart requested' }).waitFor();
    assert.is(fleet.billing.requestsTo('/restart', 'POST').length, 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('an unknown instance id says so', async () => {
  const { page, close } = await openPage(browser, `${fleet.tk.url}/#/instances/000000000000`);
  try {
    await page.getByRole('heading', { name: 'Instance 000000000000 is not registered' }).waitFor();
  } finally {
    await close();
  }
});

test.run();
