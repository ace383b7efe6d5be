import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { openPage, register } from './browser-support.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { requireBinary } from '../../support/require-binary.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
let tk: TestKernel;
const admin = { username: 'admin', password: 'ui-Secret' };
const authorization = `Basic ${Buffer.from(`${admin.username}:${admin.password}`).toString('base64')}`;

test.before(async () => {
  browser = await launchChromium();
  tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'basic-auth', 'ui'],
    config: { 'log-level': 'warn', 'context-path': '/admin', 'basic-auth': { users: [admin] } },
  });
  await register(tk, { name: 'shop', healthUrl: 'http://127.0.0.1:9/shop/actuator/health' }, { authorization });
});

test.after(async () => {
  await browser?.close();
  await tk?.stop();
});

test('behind basic-auth and a context path: the browser signs in once, the list and the stream work', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${tk.url}/`, admin);
  try {
    assert.match(page.url(), /\/admin\/$/);
    await page.locator('[data-app=shop]').waitFor();
    await page.locator('[data-connection=live]').waitFor();
    await register(tk, { name: 'billing', healthUrl: 'http://127.0.0.1:9/billing/actuator/health' }, { authorization });
    await page.locator('[data-app=billing]').waitFor();
    assert.ok(requests.includes('GET /admin/applications') && requests.includes('GET /admin/instances/events'), requests.join());
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('without credentials the browser gets the challenge, never the page', async () => {
  const context = await browser.newContext();
  try {
    const response = await context.request.get(`${tk.url}/`, { headers: { accept: 'text/html' } });
    assert.is(response.status(), 401);
    assert.is(response.headers()['www-authenticate'], 'Basic realm="Vigil", charset="UTF-8"');
    assert.not.match(await response.text(), '<html');
    // A headless browser cannot answer the challenge: the navigation fails instead of showing anything.
    const page = await context.newPage();
    const failure = await page.goto(`${tk.url}/`).then(() => 'loaded', (error: Error) => error.message);
    assert.match(failure, 'ERR_INVALID_AUTH_CREDENTIALS');
  } finally {
    await context.close();
  }
});

test.run();
