import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { call } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { openPage } from '../ui/browser-support.js';
import { OPERATOR, PASSWORD, VIEWER, startAudit, type AuditKernel } from './support.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);
const JSON_BODY = { 'content-type': 'application/json' };

let browser: Browser;
let audit: AuditKernel;

test.before(async () => {
  browser = await launchChromium();
  audit = await startAudit({ plugins: ['rest-api', 'sse', 'proxy', 'basic-auth', 'audit', 'ui'] });
});

test.after(async () => {
  await browser?.close();
  await audit?.stop();
});

const setLevel = (headers: Record<string, string>, level: string) =>
  call('POST', `${audit.tk.url}/instances/${audit.id}/actuator/loggers/ROOT`, { headers: { ...headers, ...JSON_BODY }, body: `{"configuredLevel":"${level}"}` });

test('an admin sees the Audit page: recorded actions, filtered, and new ones live', async () => {
  assert.is((await setLevel(OPERATOR, 'DEBUG')).status, 204);
  await audit.entry((e) => e.actor.name === 'olga', 'the first change');
  const { page, errors, close } = await openPage(browser, `${audit.tk.url}/#/audit`, { username: 'root', password: PASSWORD });
  try {
    await page.getByRole('link', { name: 'Audit', exact: true }).waitFor();
    const table = page.getByRole('region', { name: 'Audit trail' }).locator('table');
    await table.locator('tr', { hasText: 'olga' }).filter({ hasText: 'actuator.write' }).waitFor();
    assert.match(await table.textContent() ?? '', '{"configuredLevel":"DEBUG"}');
    // Live: a refused change made now shows without reloading.
    assert.is((await setLevel(VIEWER, 'TRACE')).status, 403);
    await table.locator('tr', { hasText: 'vera' }).filter({ hasText: '403' }).waitFor();
    // Filtered by actor on the server: only vera's.
    await page.getByLabel('Actor').fill('vera');
    await page.getByRole('button', { name: 'Filter' }).click();
    await table.locator('tr', { hasText: 'olga' }).waitFor({ state: 'detached' });
    assert.is(await table.locator('tbody tr').count(), 1);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('an instance\'s page lists its recent actions', async () => {
  const { page, errors, close } = await openPage(browser, `${audit.tk.url}/#/instances/${audit.id}`, { username: 'root', password: PASSWORD });
  try {
    const recent = page.getByRole('article', { name: 'Recent actions' });
    await recent.locator('tr', { hasText: 'olga' }).waitFor();
    assert.match(await recent.textContent() ?? '', `POST /instances/${audit.id}/actuator/loggers/ROOT`);
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test('a viewer gets neither the Audit page link nor an instance\'s recent actions', async () => {
  const { page, errors, requests, close } = await openPage(browser, `${audit.tk.url}/#/instances/${audit.id}`, { username: 'vera', password: PASSWORD });
  try {
    // The page asks what the caller was granted: reload and wait for that answer before looking.
    await Promise.all([page.waitForResponse((res) => res.url().endsWith('/access/me') && res.status() === 200), page.reload()]);
    await page.getByRole('article', { name: 'Endpoints' }).waitFor();
    await page.getByRole('link', { name: 'Journal' }).waitFor();
    assert.is(await page.getByRole('link', { name: 'Audit', exact: true }).count(), 0);
    assert.is(await page.getByRole('article', { name: 'Recent actions' }).count(), 0);
    assert.not.ok(requests.some((request) => request.startsWith('GET /audit')), requests.join());
    assert.equal(errors, []);
  } finally {
    await close();
  }
});

test.run();
