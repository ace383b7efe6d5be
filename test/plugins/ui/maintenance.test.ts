import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { call, eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver } from '../notify/receiver.js';
import { registerInstance, setStatus } from '../notify/support.js';
import { openPage } from './browser-support.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let receiver: Receiver;
let tk: TestKernel;

test.before(async () => {
  browser = await launchChromium();
  receiver = await Receiver.start();
  tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'ui', 'notify', 'notify-webhook'],
    config: {
      'log-level': 'warn',
      notify: { expectations: [{ applications: ['orders'], 'min-up': 2, for: '200ms' }] },
      'notify-webhook': { url: `${receiver.url}/hook` },
    },
  });
});

test.after(async () => {
  await tk.stop();
  await receiver.close();
  await browser.close();
});

interface Window { id: string; applications: string[]; instances: string[]; reason: string; start: string; end: string; active: boolean }

test('an operator starts "maintenance for 1 h" from an application\'s page; the list and the notifications page show it; ending it brings the degraded verdict', async () => {
  const [a, b] = [await registerInstance(tk, 'orders'), await registerInstance(tk, 'orders')];
  const billing = await registerInstance(tk, 'billing');
  for (const id of [a, b, billing]) await setStatus(tk, id, 'UP');
  const opened = await openPage(browser, `${tk.url}/#/applications/orders`);
  const { page } = opened;
  try {
    await page.getByRole('button', { name: 'Maintenance for 1 h' }).click();
    await page.locator('.maintenance-note').waitFor();
    const [made] = (await call('GET', `${tk.url}/maintenance`)).json as Window[];
    assert.equal([made!.id, made!.applications, made!.instances, made!.reason, made!.active], ['M-1', ['orders'], [], 'started from the dashboard', true]);
    assert.is(Date.parse(made!.end) - Date.parse(made!.start), 3_600_000);
    assert.match(await page.locator('.maintenance-note').innerText(), /In maintenance: M-1 until .+ \(started from the dashboard\), by anonymous/);
    await page.getByRole('button', { name: 'End maintenance' }).waitFor();

    // An outage inside the window: the expectation's verdict waits for its end.
    await setStatus(tk, a, 'DOWN');
    await page.goto(`${tk.url}/#/`);
    await page.locator('.app-row[data-app="orders"] .tag.maintenance').waitFor();
    assert.is(await page.locator('.app-row[data-app="billing"] .tag.maintenance').count(), 0);
    assert.is(await page.locator(`.instance-row[data-instance="${a}"] .tag.maintenance`).count(), 1);
    assert.is(await page.locator(`.instance-row[data-instance="${billing}"] .tag.maintenance`).count(), 0);

    await page.goto(`${tk.url}/#/notifications`);
    await page.locator('.window-row[data-window="M-1"][data-active="true"]').waitFor();
    assert.match(await page.locator('.window-row').innerText(), /M-1\s*running\s+application orders/);

    await page.goto(`${tk.url}/#/applications/orders`);
    await page.getByRole('button', { name: 'End maintenance' }).click();
    await page.getByRole('button', { name: 'Maintenance for 1 h' }).waitFor();
    assert.equal((await call('GET', `${tk.url}/maintenance`)).json, []);
    // The report of the window, then the verdict it held back.
    await receiver.received(2, undefined, 10_000);
    await eventually(async () => ((await call('GET', `${tk.url}/notifications`)).json as { expectations: { state: string }[] }).expectations[0]?.state === 'degraded', 'the verdict');
    await page.goto(`${tk.url}/#/`);
    await page.locator('.app-row[data-app="orders"] .tag.degraded').waitFor();
    await page.goto(`${tk.url}/#/applications/orders`);
    assert.match(await page.locator('.shortfall-note').innerText(), /^Degraded: 1 of 2 instances UP, 2 required since /);
    assert.equal(opened.errors, []);
  } finally {
    await opened.close();
  }
});

test.run();
