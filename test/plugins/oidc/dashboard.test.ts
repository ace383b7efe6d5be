import type { Browser, BrowserContext, Page } from 'playwright-core';
import * as assert from 'uvu/assert';
import type { VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { createOidcPlugin } from '../../../plugins/oidc/index.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { call } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { CLIENT_ID, startProvider, type TestProvider } from './support/provider.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

const ADMIN = { username: 'admin', password: 'dash-Secret-41' };
const authorization = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

let browser: Browser;
let provider: TestProvider;
let tk: TestKernel;

test.before(async () => {
  browser = await launchChromium();
  provider = await startProvider({ groups: { alice: ['ops'] }, contextPath: '/admin' });
  tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'basic-auth', createOidcPlugin() as VigilPlugin<never>, 'ui'],
    config: { 'log-level': 'warn', 'context-path': '/admin', 'basic-auth': { users: [ADMIN] }, oidc: { issuer: provider.issuer, 'client-id': CLIENT_ID } },
  });
});

test.after(async () => {
  await browser?.close();
  await tk?.stop();
  await provider?.close();
});

/** A fresh browser profile that reaches nothing but this machine (the provider's pages import a web font). */
async function isolatedContext(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.route(/^https?:\/\/(?!127\.0\.0\.1[:/])/, (route) => route.abort());
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  const vigil = new URL(tk.url).origin;
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error' && page.url().startsWith(vigil)) errors.push(message.text()); });
  return { context, page, errors };
}

/** The provider's development sign-in, as a person fills it in, then its confirmation of the client. */
async function signInAtProvider(page: Page, login: string): Promise<void> {
  await page.waitForURL(`${provider.issuer}/interaction/**`);
  await page.locator('input[name=login]').fill(login);
  await page.locator('input[name=password]').fill('any password');
  await page.locator('button[type=submit]').click();
  // A native client's user confirms it every time (oidc-provider's `native_client_prompt`).
  await page.locator('button[type=submit]', { hasText: 'Continue' }).click();
}

test('in Chromium: the dashboard sends the browser to the provider, shows who signed in, follows the stream, and signs out there', async () => {
  const { context, page, errors } = await isolatedContext();
  try {
    await page.goto(`${tk.url}/`);
    await signInAtProvider(page, 'alice');
    await page.waitForURL(`${tk.url}/`);
    await page.locator('[data-signed-in=alice]').waitFor();
    assert.match(await page.locator('.signed-in').innerText(), /Signed in as\s+alice/);
    await page.locator('[data-connection=live]').waitFor();
    await page.locator('[data-signed-in=alice]').waitFor();

    // Cookies are kept per host, not per port: the provider's (on another port of 127.0.0.1) are listed too.
    const cookie = (await context.cookies(`${tk.url}/`)).find((candidate) => candidate.name === 'vigil_session');
    assert.equal({ name: cookie!.name, path: cookie!.path, httpOnly: cookie!.httpOnly, sameSite: cookie!.sameSite, secure: cookie!.secure, session: cookie!.expires === -1 },
      { name: 'vigil_session', path: '/admin', httpOnly: true, sameSite: 'Lax', secure: false, session: true });
    assert.equal(await page.evaluate('document.cookie'), '', 'no script can read it');

    // A script registers with Basic credentials; the signed-in dashboard sees it live.
    const reply = await call('POST', `${tk.url}/instances`, { json: { name: 'shop', healthUrl: 'http://127.0.0.1:9/health' }, headers: { authorization } });
    assert.is(reply.status, 201);
    await page.goto(`${tk.url}/#/`);
    await page.locator('[data-app=shop]').waitFor();

    // Sign out: the session ends here, the provider asks to confirm, then shows Vigil's signed-out page.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${provider.issuer}/session/end**`);
    assert.equal((await context.cookies(`${tk.url}/`)).filter((candidate) => candidate.name.startsWith('vigil_')), [], 'the session cookie is gone');
    await page.locator('button[autofocus]').click();
    await page.waitForURL(`${tk.url}/login/signed-out`);
    assert.is(await page.locator('h1').innerText(), 'Signed out');

    // Signed out at the provider too: the dashboard asks for the login form again.
    await page.getByRole('link', { name: 'Sign in again' }).click();
    await page.waitForURL(`${provider.issuer}/interaction/**`);
    await page.locator('input[name=login]').waitFor();
    // The live stream was cut when the session ended (the browser reports the unfinished response).
    assert.equal(errors.filter((error) => !error.includes('ERR_INCOMPLETE_CHUNKED_ENCODING')), []);
  } finally {
    await context.close();
  }
});

test('in Chromium: a session that ends while the dashboard is open sends it to sign in, and back to the view it was on', async () => {
  const { context, page, errors } = await isolatedContext();
  try {
    await page.goto(`${tk.url}/`);
    await signInAtProvider(page, 'alice');
    await page.locator('[data-signed-in=alice]').waitFor();
    await page.locator('[data-connection=live]').waitFor();
    // Signed out in another tab.
    const other = await context.newPage();
    await other.goto(`${tk.url}/`);
    const signedOut = await other.evaluate(async (url) => (await fetch(url, { method: 'POST', headers: { accept: 'application/json' } })).status, `${tk.url}/logout`);
    assert.is(signedOut, 200);
    await other.close();
    // Its live stream ends with the session; the reconnect is refused, and the page goes to sign in, keeping its view.
    await page.evaluate('location.hash = "#/journal"');
    await page.waitForURL(`${provider.issuer}/**`);
    // The provider still knows alice: it only asks to confirm, then sends the browser back to the journal.
    await page.locator('button[type=submit]', { hasText: 'Continue' }).click();
    await page.waitForURL(`${tk.url}/#/journal`);
    await page.locator('[data-signed-in=alice]').waitFor();
    assert.equal(errors.filter((error) => !error.includes('ERR_INCOMPLETE_CHUNKED_ENCODING') && !error.includes('status of 401')), []);
  } finally {
    await context.close();
  }
});

test.run();
