import { readFileSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
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

const lastLine = (page: import('playwright-core').Page) => page.locator('.log-line').last().textContent();

test('the log file: its tail read by Range (never the whole file), earlier parts on demand, new lines followed, rotation noticed', async () => {
  const boot = fleet.billing[0];
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing[0]}/logfile`);
  try {
    await page.locator('.log-line', { hasText: '#2999' }).waitFor();
    const [first] = boot.requestsTo('/logfile');
    assert.is(first!.headers.range, 'bytes=-262144');
    assert.match(String(first!.headers.accept), 'text/plain');
    const window = page.locator('[data-testid=log-window]');
    assert.match(await window.textContent() ?? '', new RegExp(`^1,\\d{3} lines, 256 KiB of ${(boot.logSize / 1024).toFixed(1)} KiB`));

    // Following: appended lines arrive, each poll asking only from the last byte held.
    boot.appendLog(3);
    await page.locator('.log-line', { hasText: '#3002' }).waitFor();
    assert.match(await lastLine(page) ?? '', '#3002');
    const follows = boot.requestsTo('/logfile').slice(1).map((request) => request.headers.range);
    assert.ok(follows.length > 0 && follows.every((range) => /^bytes=\d+-$/.test(String(range))), `follow ranges: ${follows.join(' ')}`);
    assert.ok(boot.requestsTo('/logfile').every((request) => request.headers.range !== undefined), 'no request for the whole file');

    await page.getByRole('button', { name: 'Load earlier' }).click();
    await page.locator('[data-testid=log-window]', { hasText: /^3,003 lines, .* \(the whole file\)$/ }).waitFor();
    assert.match(boot.requestsTo('/logfile').map((request) => String(request.headers.range)).find((range) => /^bytes=0-\d+$/.test(range)) ?? '', /^bytes=0-\d+$/);
    await page.locator('.log-lines').evaluate((element) => { element.scrollTop = 0; });
    await page.locator('.log-line', { hasText: /#0$/ }).first().waitFor();
    assert.equal(errors, []);

    // The application rolled its log over: the file is now shorter than what was read. The one
    // follow that asks past the new end gets 416 (the browser logs it), then the new tail is read.
    boot.rotateLog(2);
    await page.locator('[data-testid=log-window]', { hasText: /^2 lines, .* \(the whole file\)$/ }).waitFor();
    assert.match(await lastLine(page) ?? '', '#3004');
    assert.equal(errors.filter((error) => !error.includes('416 (Range Not Satisfiable)')), []);
  } finally {
    await close();
  }
});

test('search marks and steps through matches, or shows only matching lines; Download saves the whole file', async () => {
  const { page, errors, close } = await openPage(browser, `${fleet.tk.url}/#/instances/${fleet.ids.billing[1]}/logfile`);
  try {
    const other = fleet.billing[1];
    await page.locator('.log-line').first().waitFor();
    await page.getByLabel('Search the log').fill('timed out');
    const count = page.locator('[data-testid=log-matches]');
    await count.filter({ hasText: /^2 of 2$/ }).waitFor();
    assert.match(await page.locator('.log-line.focused').textContent() ?? '', /ERROR .*timed out.*#339/);
    await page.getByRole('button', { name: 'Previous match' }).click();
    await count.filter({ hasText: /^1 of 2$/ }).waitFor();
    assert.match(await page.locator('.log-line.focused mark').textContent() ?? '', 'timed out');
    await page.getByLabel('matching lines only').check();
    assert.is(await page.locator('.log-line').count(), 2);

    const link = page.getByRole('link', { name: 'Download' });
    assert.is(await link.getAttribute('href'), `/instances/${fleet.ids.billing[1]}/actuator/logfile`);
    const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
    assert.is(download.suggestedFilename(), `billing-${fleet.ids.billing[1]}.log`);
    assert.is(readFileSync((await download.path())!).length, other.logSize);
    assert.is(other.requestsTo('/logfile').filter((request) => request.headers.range === undefined).length, 1, 'the download is the plain file, and only it');
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
