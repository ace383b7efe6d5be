import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { vigilVersion } from '../../../core/version.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { startBootFleet, type BootFleet } from './boot-fleet.js';
import { countOf, openPage } from './browser-support.js';

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

const confirm = async (page: import('playwright-core').Page, label: string) => page.getByRole('dialog').getByRole('button', { name: label, exact: true }).click();

test('applications list: grouped by the metadata group, a Refresh that reaches the server, names that open the application', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${fleet.tk.url}/`);
  try {
    await page.locator('.instance-row').nth(2).waitFor();
    assert.equal(await page.locator('.vrow > .row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-group') ?? row.getAttribute('data-app') ?? 'instance')),
      ['payments', 'billing', 'instance', 'instance', 'Other', 'shop', 'instance']);
    const checks = fleet.shop.requestsTo('/health').length;
    await page.getByRole('button', { name: 'Refresh', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Refresh requested' }).waitFor();
    assert.is(countOf(requests, 'POST /applications'), 1);
    await eventually(() => fleet.shop.requestsTo('/health').length > checks, 'a health check after the refresh');
    await page.getByRole('link', { name: 'billing', exact: true }).click();
    await page.getByRole('heading', { name: 'billing' }).waitFor();
    assert.equal(await page.locator('table[aria-label=Instances] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-instance')).sort()), [...fleet.ids.billing].sort());
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('application-wide loggers: one click sets the level on every instance, each instance\'s answer shown', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/applications/billing/loggers`);
  try {
    await page.getByRole('status').filter({ hasText: '5 loggers from 2 of 2 instances' }).waitFor();
    const row = page.locator('[data-logger="com.example.billing"]');
    await row.getByRole('button', { name: 'DEBUG' }).click();
    const results = page.getByRole('status', { name: 'com.example.billing set to DEBUG' });
    await results.filter({ hasText: '2 of 2 instances succeeded' }).waitFor();
    assert.equal(await results.locator('.http-status').allTextContents(), ['204', '204']);
    for (const boot of fleet.billing) {
      const [post] = boot.requestsTo('/loggers/com.example.billing', 'POST');
      assert.equal(JSON.parse(post!.body.toString('utf8')), { configuredLevel: 'DEBUG' });
      assert.is(boot.loggers['com.example.billing']!.configuredLevel, 'DEBUG');
    }
    await row.locator('button[aria-pressed=true]', { hasText: 'DEBUG' }).waitFor();
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('application-wide caches: evict one cache on every instance after confirming, each answer shown', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/applications/billing/caches`);
  try {
    const row = page.locator('tr[data-cache="invoices"]');
    assert.match(await row.textContent() ?? '', /invoicescacheManager2 of 2/);
    await row.getByRole('button', { name: 'Evict…' }).click();
    await confirm(page, 'Evict');
    await page.getByRole('status', { name: 'Cache invoices evicted' }).filter({ hasText: '2 of 2 instances succeeded' }).waitFor();
    for (const boot of fleet.billing) assert.equal(boot.evictions, ['invoices']);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('instance switcher: another instance of the application, on the same view', async () => {
  const [first, second] = fleet.ids.billing;
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${first}/loggers`);
  try {
    await page.locator('[data-logger=ROOT]').waitFor();
    await page.getByLabel('Instance of billing').selectOption(second);
    await page.waitForURL(`**/#/instances/${second}/loggers`);
    await page.getByRole('link', { name: 'Loggers', exact: true }).and(page.locator('[aria-current=page]')).waitFor();
    assert.is(await page.getByLabel('Instance of billing').inputValue(), second);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('About: Vigil\'s version, the loaded plugins, and the effective config', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/`);
  try {
    await page.getByRole('link', { name: 'About' }).click();
    await page.getByTestId('vigil-version').filter({ hasText: vigilVersion() }).waitFor();
    assert.equal(await page.locator('tr[data-plugin] td:first-child').allTextContents(), ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'ui']);
    // A built-in plugin ships with Vigil: its version is Vigil's.
    assert.match(await page.locator('tr[data-plugin=ui]').textContent() ?? '', `ui${vigilVersion()}built in`);
    assert.match(await page.locator('tr[data-plugin=rest-api]').textContent() ?? '', `rest-api${vigilVersion()}built in`);
    const config = await page.locator('pre.config').textContent() ?? '';
    assert.match(config, /^port: 0$/m);
    assert.match(config, /^monitor:\n(  .*\n)*  status-interval: 200$/m);
    assert.match(config, /^plugins:\n  - rest-api\n/m);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('deregistering a whole application asks first, then every instance goes', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/applications/shop`);
  try {
    await page.getByRole('button', { name: 'Deregister…' }).click();
    assert.match(await page.getByRole('dialog').textContent() ?? '', 'The only instance of shop is deregistered');
    await confirm(page, 'Deregister');
    await page.locator('[data-testid=summary]').filter({ hasText: '2 instances in 1 application' }).waitFor();
    assert.not.ok(fleet.tk.kernel.registry.get(fleet.ids.shop)!.registered);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
