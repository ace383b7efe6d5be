import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { call } from '../../support/http.js';
import { openPage, countOf, register, startFleet, type Fleet } from './browser-support.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { requireBinary } from '../../support/require-binary.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let fleet: Fleet;

test.before(async () => {
  browser = await launchChromium();
  fleet = await startFleet();
});

test.after(async () => {
  await browser?.close();
  await fleet?.stop();
});

test('applications page: each application with its aggregated status and counts, worst first, each instance with its own', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${fleet.tk.url}/`);
  try {
    await page.locator('[data-testid=summary]', { hasText: '3 instances in 2 applications' }).waitFor();
    assert.equal(await page.locator('.app-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-app'))), ['shop', 'billing']);
    assert.is(await page.locator('[data-app=shop] > .badge').textContent(), 'RESTRICTED');
    assert.is(await page.locator('[data-app=billing] > .badge').textContent(), 'UP');
    assert.equal(await page.locator('[data-app=shop] .counts .badge').allTextContents(), ['1DOWN', '1UP']);
    assert.is(await page.locator('[data-app=billing] .version').textContent(), '3.1.4');
    assert.is(await page.locator(`[data-instance="${fleet.ids.shopDown}"] .badge`).textContent(), 'DOWN');
    assert.is(await page.locator(`[data-instance="${fleet.ids.shopUp}"] .badge`).textContent(), 'UP');
    assert.is(await page.locator(`[data-instance="${fleet.ids.billing}"] .tags`).textContent(), 'env=prod');
    // One list and one stream, not a request per instance; and once what the caller may do (the buttons).
    const api = requests.filter((r) => !r.includes('/ui/') && r !== 'GET /');
    assert.equal(api.filter((r) => r !== 'GET /access/me'), ['GET /instances/events', 'GET /applications']);
    assert.is(countOf(requests, 'GET /access/me'), 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('filters: by words, by status, by tag; the counts follow', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/`);
  try {
    const filter = page.getByLabel('Filter applications');
    await page.locator('.app-row').first().waitFor();
    await filter.fill('bill');
    await page.locator('[data-testid=summary]', { hasText: '1 of 3 instances match, in 1 application' }).waitFor();
    assert.equal(await page.locator('.app-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-app'))), ['billing']);

    // Words match instance details too: the port of one shop instance.
    await filter.fill(`shop ${fleet.shopDown.port}`);
    await page.locator('[data-testid=summary]', { hasText: '1 of 3 instances match' }).waitFor();
    assert.is(await page.locator('.instance-row').count(), 1);
    assert.is(await page.locator('[data-app=shop] .instances-count').textContent(), '1 of 2 match');

    await filter.fill('');
    await page.locator('.chips .chip.s-down').click();
    await page.locator('[data-testid=summary]', { hasText: '1 of 3 instances match, in 1 application' }).waitFor();
    assert.is(await page.locator(`[data-instance="${fleet.ids.shopDown}"]`).count(), 1);
    await page.locator('.chips .chip.s-down').click();

    await page.getByLabel('Filter by tag').selectOption('env=prod');
    await page.locator('[data-testid=summary]', { hasText: '1 of 3 instances match, in 1 application' }).waitFor();
    assert.is(await page.locator(`[data-instance="${fleet.ids.billing}"]`).count(), 1);
    await page.getByRole('button', { name: 'Clear filter' }).click();
    await page.locator('[data-testid=summary]', { hasText: '3 instances in 2 applications' }).waitFor();

    await page.getByRole('button', { name: 'Collapse all' }).click();
    assert.is(await page.locator('.instance-row').count(), 0);
    await page.getByRole('button', { name: 'Show the instances of billing' }).click();
    assert.is(await page.locator('.instance-row').count(), 1);
    await page.getByRole('button', { name: 'Expand all' }).click();
    assert.is(await page.locator('.instance-row').count(), 3);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('a status change on an instance shows up live, in the row and the aggregate, without reloading anything', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${fleet.tk.url}/`);
  try {
    const row = page.locator(`[data-instance="${fleet.ids.shopUp}"] .badge`);
    await row.filter({ hasText: 'UP' }).waitFor();
    await page.evaluate('window.marker = 42');

    fleet.shopUp.setHealth(503, { status: 'DOWN' });
    await row.filter({ hasText: 'DOWN' }).waitFor();
    await page.locator('[data-app=shop] > .badge', { hasText: 'DOWN' }).waitFor();
    assert.equal(await page.locator('[data-app=shop] .counts .badge').allTextContents(), ['2DOWN']);

    fleet.shopUp.setHealth(200, { status: 'UP' });
    await row.filter({ hasText: 'UP' }).waitFor();
    await page.locator('[data-app=shop] > .badge', { hasText: 'RESTRICTED' }).waitFor();

    assert.is(await page.evaluate('window.marker'), 42, 'the page was not reloaded');
    assert.is(countOf(requests, 'GET /applications'), 1);
    assert.is(countOf(requests, 'GET /instances/events'), 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('journal: the event list, live, filterable by type and by instance', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${fleet.tk.url}/#/journal`);
  try {
    const summary = page.locator('[data-testid=journal-summary]');
    await page.locator(`.event-row[data-type=REGISTERED]`, { hasText: fleet.ids.billing }).waitFor();
    assert.is(countOf(requests, 'GET /instances/events'), 2, 'the stream, and the held history once');

    const id = await register(fleet.tk, { name: 'late', healthUrl: 'http://127.0.0.1:9/actuator/health' });
    const newest = page.locator('.event-row').first();
    await newest.filter({ hasText: id }).waitFor();
    assert.is(await newest.locator('.app-name').textContent(), 'late');

    await page.getByRole('button', { name: 'DEREGISTERED' }).click();
    await summary.filter({ hasText: /^0 events/ }).waitFor();
    assert.is((await call('DELETE', `${fleet.tk.url}/instances/${id}`)).status, 204);
    await summary.filter({ hasText: /^1 event\b/ }).waitFor();
    assert.is(await page.locator('.event-row').first().getAttribute('data-type'), 'DEREGISTERED');
    await page.getByRole('button', { name: 'DEREGISTERED' }).click();

    await page.getByLabel('Filter by instance').fill(fleet.ids.billing);
    await summary.filter({ hasText: /^\d+ events/ }).waitFor();
    const texts = await page.locator('.event-row').allTextContents();
    assert.ok(texts.length >= 3 && texts.every((text) => text.includes(fleet.ids.billing)), texts.join('\n'));
    const types = await page.locator('.event-row').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-type')));
    assert.ok(types.includes('REGISTERED') && types.includes('STATUS_CHANGED') && types.includes('ENDPOINTS_DETECTED'), types.join());

    await page.locator('.event-row[data-type=REGISTERED]').click();
    await page.locator('.event-detail-panel').waitFor();
    assert.match(await page.locator('.event-detail-panel').textContent() ?? '', '******');
    assert.not.match(await page.locator('.event-detail-panel').textContent() ?? '', 'hunter2');
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('wallboard: one tile per application, worst first, with status word and counts', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/wallboard`);
  try {
    await page.locator('.tile').nth(1).waitFor();
    const tiles = await page.locator('.tile').evaluateAll((all) => all.map((tile) => [tile.getAttribute('data-app'), tile.querySelector('.tile-status')?.textContent, tile.querySelector('.tile-counts')?.textContent]));
    assert.equal(tiles, [['shop', 'RESTRICTED', '1 DOWN · 1 UP'], ['billing', 'UP', '1 UP']]);
    await page.locator('.tile[data-app=billing]').click();
    await page.locator('[data-testid=summary]', { hasText: '1 of 3 instances match' }).waitFor();
    assert.is(await page.getByLabel('Filter applications').inputValue(), 'billing');
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
