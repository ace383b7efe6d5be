import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { call } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, registerInstance, setStatus } from '../notify/support.js';
import { openPage } from './browser-support.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let receiver: Receiver;
let tk: TestKernel;

test.before(async () => {
  browser = await launchChromium();
  receiver = await Receiver.start();
  tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'ui', 'notify', 'notify-webhook', 'notify-slack'],
    config: {
      'log-level': 'warn',
      notify: { delivery: { 'max-attempts': 1 } },
      'notify-webhook': { url: `${receiver.url}/hook?token=PageS3cret` },
      'notify-slack': { 'webhook-url': `${receiver.url}/services/SlackPageS3cret`, 'rate-limit': 0 },
    },
  });
});

test.after(async () => {
  await tk.stop();
  await receiver.close();
  await browser.close();
});

test('the notifications page: channels with masked targets, recent deliveries, filters added and removed', async () => {
  receiver.route = (req) => (req.url.startsWith('/services') ? { status: 500, body: '{"error":"boom"}' } : undefined);
  const id = await registerInstance(tk, HOSTILE);
  await setStatus(tk, id, 'DOWN');
  await receiver.received(2);
  const opened = await openPage(browser, `${tk.url}/#/notifications`);
  const { page } = opened;
  try {
    await page.locator('.channel-row').nth(1).waitFor();
    assert.equal(await page.locator('.top nav a[aria-current="page"]').innerText(), 'Notifications');
    const rows = await page.locator('.channel-row').allInnerTexts();
    assert.match(rows[0]!, /^webhook\s+http:\/\/127\.0\.0\.1:\d+\/\*\*\*\*\*\*\s+1\s+0\s+0/);
    assert.match(rows[1]!, /^slack\s+http:\/\/127\.0\.0\.1:\d+\/\*\*\*\*\*\*\s+0\s+1\s+0/);
    assert.match(rows[1]!, /HTTP 500: \{"error":"boom"\}/);
    const html = await page.content();
    assert.ok(!html.includes('PageS3cret'), 'no secret on the page');
    // The hostile name is text, never markup.
    assert.ok((await page.locator('.delivery-row[data-outcome=delivered]').innerText()).includes(HOSTILE));
    assert.is(await page.locator('script:not([src])').count(), 0);

    await page.getByLabel('Filter by').selectOption('applicationName');
    await page.getByLabel('Application name').fill('billing');
    await page.getByLabel('For').selectOption({ label: 'until removed' });
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.locator('.filter-row[data-filter="F-0"]').waitFor();
    assert.match(await page.locator('.filter-row').innerText(), /F-0\s+application billing\s+never/);
    assert.equal((await call('GET', `${tk.url}/notifications/filters`)).json, [{ id: 'F-0', applicationName: 'billing', expiry: null, expired: false }]);

    await page.getByLabel('Filter by').selectOption('instanceId');
    await page.getByLabel('Instance id').fill(id);
    await page.getByRole('button', { name: 'Add filter' }).click();
    await page.locator('.filter-row[data-filter="F-1"]').waitFor();
    assert.match(await page.locator('.filter-row[data-filter="F-1"]').innerText(), new RegExp(`F-1\\s+instance ${id}`));

    await page.locator('.filter-row[data-filter="F-0"]').getByRole('button', { name: 'Remove' }).click();
    await page.locator('.filter-row[data-filter="F-0"]').waitFor({ state: 'detached' });
    assert.equal(((await call('GET', `${tk.url}/notifications/filters`)).json as { id: string }[]).map((f) => f.id), ['F-1']);
    assert.equal(opened.errors, []);
  } finally {
    await opened.close();
  }
});

test('without the notify plugin the page says how to turn notifications on', async () => {
  const plain = await startTestKernel({ plugins: ['rest-api', 'sse', 'ui'], config: { 'log-level': 'warn' } });
  const opened = await openPage(browser, `${plain.url}/#/notifications`);
  try {
    await opened.page.getByRole('heading', { name: 'Notifications are off' }).waitFor();
  } finally {
    await opened.close();
    await plain.stop();
  }
});

test.run();
