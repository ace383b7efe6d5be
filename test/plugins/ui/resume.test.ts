import type { Browser } from 'playwright-core';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { countOf, openPage, register } from './browser-support.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../support/chromium.js';
import { requireBinary } from '../../support/require-binary.js';
import { TcpRelay } from './tcp-relay.js';

const { test } = requireBinary('chromium', CHROMIUM_INSTALL);

let browser: Browser;
const kernels: TestKernel[] = [];
let relay: TcpRelay | undefined;

const daemon = async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'sse', 'ui'], config: { 'log-level': 'warn' } });
  kernels.push(tk);
  return tk;
};
const registration = (name: string, n: number) => ({ name, healthUrl: `http://127.0.0.1:9/${name}-${n}/actuator/health` });
const shown = (page: import('playwright-core').Page, name: string) => page.locator(`[data-app="${name}"]`).waitFor();

test.before(async () => {
  browser = await launchChromium();
});

test.after(async () => {
  await browser?.close();
  await relay?.close();
  for (const tk of kernels) await tk.stop();
});

test('after a dropped connection the stream resumes with Last-Event-ID: missed events arrive, the list is not loaded again', async () => {
  const first = await daemon();
  relay = await TcpRelay.start(first.url);
  await register(first, registration('before', 1));
  const { page, requests, close } = await openPage(browser, `${relay.origin}/`);
  try {
    await shown(page, 'before');
    await register(first, registration('live', 1));
    await shown(page, 'live');
    const lastSeq = first.kernel.registry.lastSeq;

    relay.dropAll();
    await register(first, registration('missed', 1));
    await shown(page, 'missed');
    const resumed = relay.requestHeads.filter((head) => head.startsWith('GET /instances/events ') && /\r\nlast-event-id: /i.test(head));
    assert.is(resumed.length, 1, 'one reconnection, carrying the id of the last event seen');
    assert.match(resumed[0]!, new RegExp(`\\r\\nlast-event-id: ${lastSeq}(\\r\\n|$)`, 'i'));
    assert.is(countOf(requests, 'GET /applications'), 1, 'resuming needs no new list');
    assert.is(await page.locator('.app-row').count(), 3);
    await page.locator('[data-connection=live]').waitFor();
  } finally {
    await close();
  }
});

test('a stream that dropped before its first event cannot resume: the list is loaded again on reconnect', async () => {
  const idle = await daemon();
  relay!.pointAt(idle.url);
  await register(idle, registration('idle', 1));
  const { page, requests, close } = await openPage(browser, `${relay!.origin}/`);
  try {
    await shown(page, 'idle');
    relay!.dropAll();
    await register(idle, registration('missed', 1));
    await shown(page, 'missed');
    assert.is(countOf(requests, 'GET /applications'), 2);
    await register(idle, registration('live', 1));
    await shown(page, 'live');
  } finally {
    await close();
  }
});

test('when the server behind the page restarted, the page starts over from the new list instead of mixing histories', async () => {
  const before = await daemon();
  relay!.pointAt(before.url);
  const { page, requests, close } = await openPage(browser, `${relay!.origin}/`);
  try {
    await page.locator('[data-connection=live]').waitFor();
    for (let n = 1; n <= 3; n += 1) await register(before, registration('old', n));
    await page.locator('[data-testid=summary]', { hasText: '3 instances in 1 application' }).waitFor();

    // A restarted server numbers its events above the old run's: the jump tells the page.
    const after = await daemon();
    await register(after, registration('new', 1));
    relay!.pointAt(after.url);
    relay!.dropAll();
    await page.locator('[data-testid=summary]', { hasText: '1 instance in 1 application' }).waitFor();
    await shown(page, 'new');
    assert.is(await page.locator('[data-app=old]').count(), 0);
    assert.is(countOf(requests, 'GET /applications'), 2, 'loaded again once');

    // And it stays live on the new server.
    await register(after, registration('new', 2));
    await page.locator('[data-testid=summary]', { hasText: '2 instances in 1 application' }).waitFor();
  } finally {
    await close();
  }
});

test('a restarted server that already has more events than the page saw is still told apart: versions go back', async () => {
  const before = await daemon();
  relay!.pointAt(before.url);
  const { page, requests, close } = await openPage(browser, `${relay!.origin}/`);
  try {
    await page.locator('[data-connection=live]').waitFor();
    await register(before, registration('app', 1));
    await register(before, registration('app', 1), );
    await shown(page, 'app');
    const after = await daemon();
    // The same instance again (version 0 there), after enough other events to pass the page's last id.
    for (let n = 2; n <= 5; n += 1) await register(after, registration('other', n));
    await register(after, registration('app', 1));
    relay!.pointAt(after.url);
    relay!.dropAll();
    await eventually(() => countOf(requests, 'GET /applications') === 2, 'the list loaded again');
    await page.locator('[data-testid=summary]', { hasText: '5 instances in 2 applications' }).waitFor();
  } finally {
    await close();
  }
});

test.run();
