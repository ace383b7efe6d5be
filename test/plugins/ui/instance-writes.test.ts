import { readFileSync } from 'node:fs';
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
const confirm = async (page: import('playwright-core').Page, label: string) => page.getByRole('dialog').getByRole('button', { name: label, exact: true }).click();

test('caches: evicting one or all reaches the instance only after confirming, with the cache manager named', async () => {
  const boot = fleet.billing[0];
  const { page, errors, close } = await openPage(browser, viewUrl('caches'));
  try {
    const row = page.locator('tr[data-cache="customers"]');
    await row.getByRole('button', { name: 'Evict…' }).click();
    await confirm(page, 'Cancel');
    assert.equal(boot.evictions, []);
    await row.getByRole('button', { name: 'Evict…' }).click();
    assert.match(await page.getByRole('dialog').textContent() ?? '', 'Evict cache customers?');
    await confirm(page, 'Evict');
    await page.getByRole('status').filter({ hasText: 'Cache customers evicted' }).waitFor();
    assert.equal(boot.evictions, ['customers']);
    assert.is(boot.requestsTo('/caches/customers', 'DELETE')[0]!.url, '/actuator/caches/customers?cacheManager=cacheManager');
    await page.getByRole('button', { name: 'Evict all…' }).click();
    await confirm(page, 'Evict');
    await page.getByRole('status').filter({ hasText: 'Every cache evicted' }).waitFor();
    assert.equal(boot.evictions, ['customers', '*']);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('environment: set, refresh and reset, each after a confirmation, each reaching the instance', async () => {
  const boot = fleet.billing[0];
  const { page, errors, close } = await openPage(browser, viewUrl('env'));
  try {
    await page.getByLabel('Property name').fill('billing.reminder-days');
    await page.getByLabel('Property value').fill('21');
    await page.getByRole('button', { name: 'Set…', exact: true }).click();
    assert.match(await page.getByRole('dialog').textContent() ?? '', 'becomes "21"');
    await confirm(page, 'Cancel');
    assert.is(boot.envOverrides.size, 0, 'cancelled: nothing sent');
    await page.getByRole('button', { name: 'Set…', exact: true }).click();
    await confirm(page, 'Set');
    await page.getByRole('status').filter({ hasText: 'billing.reminder-days set to "21"' }).waitFor();
    const posted = boot.requestsTo('/env', 'POST')[0]!;
    assert.equal(JSON.parse(posted.body.toString('utf8')), { name: 'billing.reminder-days', value: '21' });
    assert.match(String(posted.headers['content-type']), 'application/json');
    // Read again: the property now shows in the instance's "manager" source.
    await page.locator('article', { hasText: 'manager' }).locator('tr', { hasText: 'billing.reminder-days' }).waitFor();

    await page.getByRole('button', { name: 'Refresh context…' }).click();
    await confirm(page, 'Refresh');
    await page.getByRole('status').filter({ hasText: 'Context refreshed; changed: billing.reminder-days' }).waitFor();
    assert.is(boot.refreshes, 1);

    await page.getByRole('button', { name: 'Reset…' }).click();
    await confirm(page, 'Reset');
    await page.getByRole('status').filter({ hasText: 'Reset: billing.reminder-days' }).waitFor();
    assert.is(boot.requestsTo('/env', 'DELETE').length, 1);
    assert.is(boot.envOverrides.size, 0);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('sessions: found by user name or id; deleting one asks first, then signs it out at the instance', async () => {
  const boot = fleet.billing[0];
  const { page, errors, close } = await openPage(browser, viewUrl('sessions'));
  try {
    await page.getByLabel('User name').fill('alice');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.getByRole('status').filter({ hasText: '2 sessions for user alice' }).waitFor();
    assert.is(boot.requestsTo('/sessions').at(-1)!.url, '/actuator/sessions?username=alice');
    const first = page.locator('tr[data-session="4db5efcc-99cb-4d05-a52c-b49acfbb7ea9"]');
    assert.match(await first.textContent() ?? '', /SPRING_SECURITY_CONTEXT, cart/);
    await first.getByRole('button', { name: 'Delete…' }).click();
    await confirm(page, 'Delete');
    await first.waitFor({ state: 'detached' });
    assert.is(boot.requestsTo('/sessions/4db5efcc-99cb-4d05-a52c-b49acfbb7ea9', 'DELETE').length, 1);
    assert.is(boot.sessions.length, 2);

    await page.getByLabel('Search by').selectOption('id');
    await page.getByLabel('Session id').fill('c2a3e1d0-7b7e-4b1f-9d6a-3c1e2f4a5b6c');
    await page.getByRole('button', { name: 'Search' }).click();
    await page.locator('tr[data-session="c2a3e1d0-7b7e-4b1f-9d6a-3c1e2f4a5b6c"]').waitFor();
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('JMX: browse MBeans, read attributes, write a writable one, invoke operations with arguments', async () => {
  const boot = fleet.billing[0];
  const { page, errors, close } = await openPage(browser, viewUrl('jmx'));
  try {
    await page.getByLabel('Search MBeans').fill('memory');
    await page.getByRole('treeitem', { name: 'type=Memory' }).click();
    const verbose = page.locator('tr[data-attribute="Verbose"]');
    await page.locator('tr[data-attribute="HeapMemoryUsage"]', { hasText: 'used' }).waitFor();
    assert.is(await verbose.getByLabel('Value of Verbose').inputValue(), 'false');
    await verbose.getByLabel('Value of Verbose').fill('true');
    await verbose.getByRole('button', { name: 'Save' }).click();
    await verbose.getByRole('status').filter({ hasText: 'saved' }).waitFor();
    assert.equal(boot.jolokia.writes, [{ mbean: 'java.lang:type=Memory', attribute: 'Verbose', value: true }]);
    assert.is(await page.locator('tr[data-attribute="ObjectPendingFinalizationCount"] input').count(), 0, 'read-only: no field');

    await page.getByLabel('Search MBeans').fill('invoice');
    await page.getByRole('treeitem', { name: 'name=invoiceService,type=InvoiceService' }).click();
    const operation = page.locator('form[data-operation="sendReminders"]');
    await operation.getByLabel('sendReminders argument customer').fill('c-42');
    await operation.getByLabel('sendReminders argument dryRun').fill('false');
    await operation.getByRole('button', { name: 'Invoke' }).click();
    await operation.getByRole('status').filter({ hasText: 'Result: 4' }).waitFor();
    assert.equal(boot.jolokia.invocations, [{ mbean: 'com.example.billing:name=invoiceService,type=InvoiceService', operation: 'sendReminders', arguments: ['c-42', false] }]);
    assert.ok(boot.jolokia.requests.every((request) => boot.requestsTo('/jolokia', 'POST').length > 0 && typeof request.type === 'string'), 'every call a Jolokia POST');
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('thread dump: downloaded in the JVM\'s text format; the timeline samples every second', async () => {
  const { page, errors, close } = await openPage(browser, viewUrl('threads'));
  try {
    await page.locator('.thread-list summary', { hasText: 'http-nio-8080-exec-2' }).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download' }).click()]);
    assert.match(download.suggestedFilename(), new RegExp(`^threaddump-billing-${fleet.ids.billing[0]}-.*\\.txt$`));
    assert.match(readFileSync((await download.path())!, 'utf8'), /^2026-01-05 10:00:00\nFull thread dump OpenJDK/);

    await page.getByRole('button', { name: 'Timeline' }).click();
    const lane = page.locator('.timeline-row[data-thread="http-nio-8080-exec-2"] .timeline-seg');
    // Until the status shows two samples or more (before the timeline is drawn it has no text at all).
    await eventually(async () => Number((await page.locator('.thread-timeline [role=status]').textContent())?.match(/(\d+) s sampled/)?.[1] ?? 0) >= 2, 'several dumps', 10_000);
    assert.ok(await lane.count() >= 1);
    assert.match(await page.locator('.thread-timeline [role=status]').textContent() ?? '', /^5 threads, \d+ s sampled every second$/);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('deregistering an instance asks first, then removes it and returns to the list', async () => {
  const id = fleet.ids.billing[1];
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${id}`);
  try {
    await page.getByRole('button', { name: 'Deregister…' }).click();
    await confirm(page, 'Cancel');
    assert.ok(fleet.tk.kernel.registry.get(id)!.registered);
    await page.getByRole('button', { name: 'Deregister…' }).click();
    await confirm(page, 'Deregister');
    await page.locator('[data-testid=summary]').waitFor();
    await eventually(() => !fleet.tk.kernel.registry.get(id)!.registered, 'the deregistration');
    await page.locator(`[data-instance="${id}"]`).waitFor({ state: 'detached' });
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
