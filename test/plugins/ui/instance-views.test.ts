import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { startBootFleet, type BootFleet } from './boot-fleet.js';
import { openPage } from './browser-support.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let fleet: BootFleet;

test.before(async () => {
  browser = await launchChromium();
  fleet = await startBootFleet();
});

test.after(async () => {
  await browser?.close();
  await fleet?.stop();
});

const viewUrl = (view: string, id = fleet.ids.billing[0]) => `${fleet.tk.url}/#/instances/${id}/${view}`;

test('the side navigation lists, grouped, exactly the views the instance exposes; each view file loads only when opened', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing[0]}`);
  try {
    await page.locator('.health-tree').waitFor();
    assert.equal(await page.locator('.view-group-label').allTextContents(), ['Insights', 'Logging', 'JVM', 'Web', 'Data', 'More']);
    assert.equal(await page.locator('.view-nav a').allTextContents(), [
      'Overview', 'Details', 'Metrics', 'Environment', 'Beans', 'Configuration properties', 'Conditions', 'Scheduled tasks', 'Log file', 'Loggers',
      'Thread dump', 'JMX', 'Mappings', 'HTTP exchanges', 'Sessions', 'Caches', 'Flyway', 'Liquibase', 'Audit events', 'Startup', 'Quartz', 'SBOM', 'Gateway',
    ]);
    assert.not.ok(requests.some((request) => /\/ui\/beans-[A-Z0-9]{8}\.js$/.test(request)), 'the beans view is not loaded before it is opened');
    await page.getByRole('link', { name: 'Beans' }).click();
    await page.locator('.vtable-row[data-key="billing/dataSource"]').waitFor();
    assert.ok(requests.some((request) => /\/ui\/beans-[A-Z0-9]{8}\.js$/.test(request)), 'opening it fetched its file');
    await close();

    const shop = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.shop}`);
    try {
      await shop.page.getByRole('article', { name: 'Health' }).waitFor();
      assert.equal(await shop.page.locator('.view-nav a').allTextContents(), ['Overview', 'Loggers']);
      // A view the instance does not expose, asked for by URL, falls back to the overview.
      await shop.page.goto(viewUrl('beans', fleet.ids.shop));
      await shop.page.getByRole('article', { name: 'Health' }).waitFor();
      assert.equal(shop.errors, []);
    } finally {
      await shop.close();
    }
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('details: process, threads, heap, non-heap, pools, GC, data source and cache statistics from the metrics, refreshed while shown', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('details'));
  try {
    const process = page.getByRole('article', { name: 'Process' });
    await process.getByText('4242').waitFor();
    assert.match(await process.textContent() ?? '', /Uptime3 d 4 hStarted.*CPUs4/);
    assert.match(await page.getByRole('article', { name: 'Threads' }).textContent() ?? '', /Peak live57/);
    assert.match(await page.getByRole('meter', { name: 'Heap used', exact: true }).locator('.meter-label').textContent() ?? '', /MiB of .* GiB \(\d+%\)/);
    assert.ok(Number(await page.getByRole('meter', { name: 'Non-heap used', exact: true }).getAttribute('aria-valuenow')) > 100 * 2 ** 20);
    const pools = await page.getByRole('article', { name: 'Memory pools' }).getByRole('meter').evaluateAll((meters) => meters.map((meter) => meter.getAttribute('aria-label')));
    assert.equal(pools, ['G1 Eden Space (heap)', 'G1 Old Gen (heap)', 'G1 Survivor Space (heap)', 'Metaspace (non-heap)', 'CodeCache (non-heap)', 'Compressed Class Space (non-heap)']);
    assert.match(await page.getByRole('article', { name: 'Garbage collection' }).textContent() ?? '', /Collections1,\d{3}Time spent\d+(\.\d+)? sLongest pause \(recent\)21 ms/);
    await page.getByRole('meter', { name: 'dataSource: active connections' }).waitFor();
    const caches = page.getByRole('article', { name: 'Cache statistics' });
    assert.equal(await caches.locator('tbody td.mono').allTextContents(), ['invoices', 'customers']);
    assert.match(await caches.locator('tbody tr').first().textContent() ?? '', /invoices18,\d{3}1,3\d\d9\d\.\d %/);
    // Live: the same metric is read again and the chart gains samples.
    const uptime = () => fleet.billing[0].requestsTo('/metrics/process.uptime').length;
    const before = uptime();
    await eventually(() => uptime() >= before + 2, 'two more samples', 10_000);
    await page.locator('.series-chart polyline').first().waitFor();
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('beans: search by type; a bean\'s dependencies both ways, one click from each other', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('beans'));
  try {
    await page.getByLabel('Search beans').fill('hikari');
    await page.locator('.vtable-row[data-key="billing/jdbcTemplate"]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('.vtable-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-key'))), ['billing/dataSource']);
    assert.match(await page.locator('.toolbar [role=status]').textContent() ?? '', '1 of 11 beans');
    await page.locator('.vtable-row[data-key="billing/dataSource"]').click();
    const panel = page.getByRole('complementary', { name: 'dataSource' });
    assert.match(await panel.textContent() ?? '', /com\.zaxxer\.hikari\.HikariDataSource.*Depends on \(2\).*jdbcConnectionDetails.*Used by \(2\)jdbcTemplateflyway/);
    await panel.getByRole('button', { name: 'jdbcTemplate' }).click();
    await page.getByRole('complementary', { name: 'jdbcTemplate' }).waitFor();
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('configuration properties and conditions: flat, searchable, sanitised values as the instance gave them, outcomes filterable', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('configprops'));
  try {
    await page.getByLabel('Search configuration properties').fill('datasource pass');
    await page.locator('.vtable-row', { hasText: 'spring.datasource.url' }).waitFor({ state: 'detached' });
    assert.match(await page.locator('.vtable-row').textContent() ?? '', /spring\.datasource\.password\*{6}System Environment Property "SPRING_DATASOURCE_PASSWORD"/);
    await page.getByLabel('Search configuration properties').fill('billing');
    await page.locator('.vtable-row', { hasText: 'billing.paymentProvider.apiKey' }).waitFor();
    assert.match(await page.locator('.vtable-row', { hasText: 'billing.countries' }).textContent() ?? '', '["DE","FR","NL"]');

    await page.getByRole('link', { name: 'Conditions' }).click();
    await page.getByRole('button', { name: 'Did not match 3' }).click();
    await page.locator('.vtable-row', { hasText: 'DataSourceAutoConfiguration' }).first().waitFor({ state: 'detached' });
    assert.equal(await page.locator('.vtable-row .outcome').allTextContents(), ['Did not match', 'Did not match', 'Did not match']);
    await page.getByLabel('Search conditions').fill('rabbit');
    await page.locator('.vtable-row').click();
    assert.match(await page.getByRole('complementary').textContent() ?? '', "did not find required class 'com.rabbitmq.client.Channel'");
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('mappings, scheduled tasks, HTTP exchanges and audit events: each as a person reads it', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('mappings'));
  try {
    await page.getByLabel('Search mappings').fill('payments');
    await page.locator('.vtable-row', { hasText: '/api/invoices/{id}/payments' }).click();
    assert.match(await page.getByRole('complementary').textContent() ?? '', /MethodsPOST.*Producesapplication\/json/);
    await page.getByLabel('Search mappings').fill('filter');
    assert.equal(await page.locator('.vtable-row span:first-child').allTextContents(), ['Filter', 'Filter']);

    await page.getByRole('link', { name: 'Scheduled tasks' }).click();
    const cron = page.getByRole('article', { name: 'Cron' });
    assert.match(await cron.textContent() ?? '', /com\.example\.billing\.jobs\.ReportJob\.daily0 0 6 \* \* \*.*SUCCESS/);
    assert.match(await page.getByRole('article', { name: 'Fixed delay' }).textContent() ?? '', /30\.0 s.*ERRORjava\.net\.SocketTimeoutException: Read timed out/);

    await page.getByRole('link', { name: 'HTTP exchanges' }).click();
    await page.locator('.vtable-row', { hasText: '/api/invoices?customer=4711' }).waitFor();
    assert.is(await page.locator('.vtable-row', { hasText: '/actuator/health' }).count(), 0, "the actuator's own requests are hidden by default");
    await page.getByRole('button', { name: '5xx' }).click();
    assert.equal(await page.locator('.vtable-row .http-status').allTextContents(), ['502']);
    assert.match(await page.locator('.vtable-row').textContent() ?? '', /POST\/api\/invoices\/INV-2026-00981\/payments5025\.01 sbob/);

    await page.getByRole('link', { name: 'Audit events' }).click();
    await page.locator('.vtable-row', { hasText: 'mallory' }).waitFor();
    await page.getByLabel('Principal').fill('bob');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.locator('.vtable-row', { hasText: 'mallory' }).waitFor({ state: 'detached' });
    assert.equal(await page.locator('.vtable-row span:nth-child(3)').allTextContents(), ['AUTHORIZATION_FAILURE', 'AUTHENTICATION_SUCCESS']);
    assert.ok(fleet.billing[0].requestsTo('/auditevents').some((request) => request.url.endsWith('?principal=bob')), 'the instance filters');
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('Flyway, Liquibase, startup, Quartz, SBOM and Gateway (refresh only after confirming)', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('flyway'));
  try {
    await page.locator('.vtable-row', { hasText: 'add payment provider ref' }).waitFor();
    await page.getByRole('button', { name: 'PENDING 1' }).click();
    assert.equal(await page.locator('.vtable-row .state').allTextContents(), ['PENDING']);

    await page.getByRole('link', { name: 'Liquibase' }).click();
    assert.match(await page.locator('.vtable-row', { hasText: 'createIndex' }).textContent() ?? '', /4.*bob.*RERAN/);

    await page.getByRole('link', { name: 'Startup' }).click();
    await page.getByText('11 steps, 2.43 s in all, Spring Boot 3.3.1').waitFor();
    await page.getByLabel('slowest first').check();
    assert.equal((await page.locator('.startup-name').allTextContents()).slice(0, 2), ['spring.context.refresh', 'spring.beans.instantiate']);

    await page.getByRole('link', { name: 'Quartz' }).click();
    const jobs = page.getByRole('article', { name: 'Jobs' });
    await jobs.getByText('reports.dailyReport').click();
    assert.match(await jobs.textContent() ?? '', /com\.example\.billing\.jobs\.DailyReportJob.*password\*{6}/);
    assert.match(await page.getByRole('article', { name: 'Triggers' }).textContent() ?? '', /reports\.everyMorningcron0 0 6 \* \* \? \(Europe\/Berlin\).*DEFAULT\.every15Minutessimpleevery 15 min 0 s/);

    await page.getByRole('link', { name: 'SBOM' }).click();
    await page.getByText('CycloneDX 1.5 of com.example:billing 3.1.4').waitFor();
    await page.getByLabel('Search components').fill('BSD');
    assert.equal(await page.locator('.vtable-row span:nth-child(2)').allTextContents(), ['postgresql']);
    assert.match(String(fleet.billing[0].requestsTo('/sbom/application').at(-1)!.headers.accept), /\*\/\*/);

    await page.getByRole('link', { name: 'Gateway' }).click();
    assert.match(await page.locator('tr[data-route="billing"]').textContent() ?? '', /billinglb:\/\/billingPaths: \[\/billing\/\*\*\].*StripPrefix/);
    const globalFilters = page.getByRole('article', { name: 'Global filters' });
    await globalFilters.locator('tbody tr').first().waitFor(); // routes and global filters are two requests; either may answer first
    assert.match(await globalFilters.textContent() ?? '', /AdaptCachedBodyGlobalFilter-2147482648/);
    await page.getByRole('button', { name: 'Refresh routes…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.is(fleet.billing[0].gatewayRefreshes, 0);
    await page.getByRole('button', { name: 'Refresh routes…' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Refresh' }).click();
    await page.getByRole('status').filter({ hasText: 'Routes refreshed' }).waitFor();
    assert.is(fleet.billing[0].gatewayRefreshes, 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
