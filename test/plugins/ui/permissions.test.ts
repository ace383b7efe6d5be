import type { Browser, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver } from '../notify/receiver.js';
import { openPage, register, type OpenedPage } from './browser-support.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

const PASSWORD = 'ui-Secret';
const user = (username: string) => ({ username, password: PASSWORD });
const authorization = `Basic ${Buffer.from(`root:${PASSWORD}`).toString('base64')}`;
/** vera views everything; olivia operates billing and views the rest; root is admin. */
const ACCESS = {
  grants: [
    { subjects: ['user:olivia'], role: 'operator', applications: ['billing'] },
    { subjects: ['user:vera', 'user:olivia'], role: 'viewer' },
    { subjects: ['user:root'], role: 'admin' },
  ],
  'sensitive-endpoints': ['heapdump'],
  'admin-endpoints': ['shutdown'],
};
const LOGGERS = { levels: ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'], loggers: { ROOT: { configuredLevel: 'INFO', effectiveLevel: 'INFO' } } };

let browser: Browser;
let receiver: Receiver;
let tk: TestKernel;
const fakes: FakeActuator[] = [];
const ids = { billing: '', shop: '' };

test.before(async () => {
  browser = await launchChromium();
  receiver = await Receiver.start();
  tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'basic-auth', 'ui', 'notify', 'notify-webhook'],
    config: {
      'log-level': 'warn',
      monitor: { 'status-interval': '100ms', 'status-lifetime': 0 },
      'basic-auth': { users: ['vera', 'olivia', 'root'].map(user) },
      access: ACCESS,
      'notify-webhook': { url: `${receiver.url}/hook` },
    },
  });
  for (const name of ['billing', 'shop'] as const) {
    const fake = await FakeActuator.start({ links: ['health', 'info', 'loggers', 'heapdump', 'restart', 'shutdown'] });
    fake.on('GET', '/loggers', { json: LOGGERS });
    fakes.push(fake);
    ids[name] = await register(tk, fake.registration(name), { authorization });
    await tk.waitForEvent((e) => e.instance === ids[name] && e.type === 'ENDPOINTS_DETECTED', `${name} endpoints`);
  }
});

test.after(async () => {
  await browser?.close();
  await tk?.stop();
  await receiver?.close();
  await Promise.all(fakes.map((fake) => fake.close()));
});

/** Opens the dashboard at `hash` as `username`, once its actions are final (`/access/me` answered). */
async function openAs(username: string, hash: string): Promise<OpenedPage> {
  const opened = await openPage(browser, `${tk.url}/${hash}`, user(username));
  await opened.page.locator('html[data-permissions=known]').waitFor({ state: 'attached' });
  return opened;
}

/** The labels of the buttons (and the heap dump link) in the page's main part. */
async function actionsOn(page: Page, selector: string): Promise<string[]> {
  return (await page.locator(`${selector} button, ${selector} a.button`).allInnerTexts()).map((text) => text.trim()).filter(Boolean).sort();
}

test('a viewer sees no action anywhere: no refresh, deregister, restart, heap dump, logger levels, maintenance or filters', async () => {
  const { page, errors, requests, close } = await openAs('vera', '#/');
  try {
    await page.locator('[data-app=billing]').waitFor();
    assert.is(await page.getByRole('button', { name: 'Refresh', exact: true }).count(), 0);

    await page.goto(`${tk.url}/#/instances/${ids.billing}`);
    await page.locator('.view-nav').getByRole('link', { name: 'Loggers' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), []);
    await page.goto(`${tk.url}/#/instances/${ids.billing}/loggers`);
    await page.locator('[data-logger=ROOT] .levels.read-only').waitFor();
    assert.is(await page.locator('[data-logger=ROOT] button').count(), 0);

    await page.goto(`${tk.url}/#/applications/billing`);
    await page.locator('[data-instance]').first().waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), []);

    await page.goto(`${tk.url}/#/notifications`);
    await page.getByRole('heading', { name: 'Filters' }).waitFor();
    assert.is(await page.getByRole('button', { name: 'Add filter' }).count(), 0);
    assert.is(await page.locator('.filter-form').count(), 0);
    assert.equal(errors, []);
    assert.ok(requests.filter((request) => request.startsWith('GET /access/me')).length === 1, 'asked once per tab');
  } finally {
    await close();
  }
});

test('an operator of billing acts on billing only; heap dump (sensitive) and shut down (admin endpoint) stay hidden', async () => {
  const { page, errors, close } = await openAs('olivia', '#/');
  try {
    await page.getByRole('button', { name: 'Refresh', exact: true }).waitFor();

    await page.goto(`${tk.url}/#/instances/${ids.billing}`);
    await page.locator('.view-nav').getByRole('link', { name: 'Loggers' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), ['Deregister…', 'Restart…']);
    await page.goto(`${tk.url}/#/instances/${ids.billing}/loggers`);
    await page.locator('[data-logger=ROOT]').getByRole('button', { name: 'DEBUG' }).waitFor();

    await page.goto(`${tk.url}/#/instances/${ids.shop}`);
    await page.locator('.view-nav').getByRole('link', { name: 'Loggers' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), []);
    await page.goto(`${tk.url}/#/instances/${ids.shop}/loggers`);
    await page.locator('[data-logger=ROOT] .levels.read-only').waitFor();

    await page.goto(`${tk.url}/#/applications/billing`);
    await page.getByRole('button', { name: 'Maintenance for 1 h' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), ['Deregister…', 'Maintenance for 1 h']);
    await page.goto(`${tk.url}/#/applications/shop`);
    await page.locator('[data-instance]').first().waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), []);

    await page.goto(`${tk.url}/#/notifications`);
    await page.getByRole('button', { name: 'Add filter' }).waitFor();
    assert.equal(errors, []);
  } finally {
    await close();
  }
  // The kernel agrees with what the page offered and withheld.
  const olivia = { authorization: `Basic ${Buffer.from(`olivia:${PASSWORD}`).toString('base64')}` };
  assert.is((await call('GET', `${tk.url}/instances/${ids.billing}/actuator/heapdump`, { headers: olivia })).status, 403);
  assert.is((await call('POST', `${tk.url}/instances/${ids.billing}/actuator/shutdown`, { headers: olivia })).status, 403);
  assert.is((await call('DELETE', `${tk.url}/applications/shop`, { headers: olivia })).status, 403);
});

test('an admin sees every action, the heap dump and shut down included', async () => {
  const { page, errors, close } = await openAs('root', `#/instances/${ids.shop}`);
  try {
    await page.locator('.view-nav').getByRole('link', { name: 'Loggers' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), ['Deregister…', 'Heap dump', 'Restart…', 'Shut down…']);
    await page.goto(`${tk.url}/#/applications/shop`);
    await page.getByRole('button', { name: 'Maintenance for 1 h' }).waitFor();
    assert.equal(await actionsOn(page, '.instance-head'), ['Deregister…', 'Maintenance for 1 h']);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
