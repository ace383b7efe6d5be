import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { findBinary, missingMessage } from '../../test/support/binaries.js';
import { CHROMIUM_INSTALL, launchChromium } from '../../test/support/chromium.js';
import { DAEMON_NODE_FLAGS, machine, median, root, round, startProcess, stopProcess, type Figure, type FigureSpec } from '../support.js';

const INSTANCES = Number(process.env.BENCH_UI_N ?? 20_000);
const APPLICATIONS = 200;
const REGISTRATION_CONCURRENCY = 32;
/** Each figure is the median of this many cold page loads (a fresh browser context each). */
const ROUNDS = 3;
const INTERACTIVE: FigureSpec = { name: 'ui-interactive-ms', target: 2000, kind: 'max', unit: 'ms' };
export const figures = [INTERACTIVE];

/**
 * How fast the dashboard is usable with a large fleet (issue 6): with N registered instances, the
 * time from navigating to the applications page until its first rows are drawn and the filter
 * input answers a keystroke. Baseline, same browser and run: fetching and JSON-parsing
 * GET /applications of the same instances, the least any page showing them must do.
 */
export async function run(): Promise<Figure[]> {
  console.log(`ui: ${INSTANCES} instances in ${APPLICATIONS} applications; ${machine()}`);
  // Where there is no browser, say so before registering 20,000 instances.
  const chromium = findBinary('chromium', CHROMIUM_INSTALL);
  if (!chromium.path) throw new Error(missingMessage(chromium));
  const config = join(tmpdir(), `vigil-bench-ui-${process.pid}.yaml`);
  // No monitor: the benchmark addresses are unreachable, and only the page is measured.
  writeFileSync(config, 'host: 127.0.0.1\nport: 0\nlog-level: info\nplugins: [rest-api, sse, ui]\n');
  const daemon = await startProcess([...DAEMON_NODE_FLAGS, join(root, 'bin', 'vigil.js'), '--config', config]);
  let browser: Browser | undefined;
  try {
    await registerFleet(daemon.url);
    browser = await launchChromium();
    const baselines: number[] = [];
    const interactive: number[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      baselines.push(await fetchAndParse(browser, daemon.url));
      interactive.push(await timeToInteractive(browser, daemon.url));
    }
    const baseline = median(baselines);
    const value = median(interactive);
    console.log(`  interactive ms: ${interactive.map(round).join(', ')}; fetch + JSON.parse ms: ${baselines.map(round).join(', ')}`);
    return [{
      ...INTERACTIVE, value,
      baseline: `same browser fetching and parsing GET /applications (${INSTANCES} instances): ${Math.round(baseline)} ms; page ${round(value / baseline)}x that`,
      ratio: value / baseline,
    }];
  } finally {
    await browser?.close();
    await stopProcess(daemon.child);
  }
}

async function registerFleet(url: string): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < INSTANCES; i = next++) {
      const host = `10.${Math.floor(i / 65_536)}.${Math.floor(i / 256) % 256}.${i % 256}`;
      const res = await fetch(`${url}/instances`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          name: `app-${String(i % APPLICATIONS).padStart(3, '0')}`,
          healthUrl: `http://${host}:8080/actuator/health`,
          managementUrl: `http://${host}:8080/actuator`,
          serviceUrl: `http://${host}:8080/`,
          metadata: { 'tags.env': i % 2 === 0 ? 'prod' : 'test', zone: `z${i % 3}` },
        }),
      });
      if (res.status !== 201) throw new Error(`registration ${i} failed: ${res.status} ${await res.text()}`);
    }
  };
  await Promise.all(Array.from({ length: REGISTRATION_CONCURRENCY }, worker));
}

/** A cold load of the page, then a filter typed: milliseconds until its result is on screen. */
async function timeToInteractive(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-US' });
  try {
    const page = await context.newPage();
    page.setDefaultTimeout(60_000);
    const started = performance.now();
    await page.goto(`${url}/`);
    await page.locator('.app-row').first().waitFor();
    const wanted = `app-${String(APPLICATIONS - 1).padStart(3, '0')}`;
    await page.getByLabel('Filter applications').fill(wanted);
    const perApp = INSTANCES / APPLICATIONS;
    await page.locator('[data-testid=summary]', { hasText: `${perApp.toLocaleString('en-US')} of ${INSTANCES.toLocaleString('en-US')} instances match, in 1 application` }).waitFor();
    await page.locator(`[data-app="${wanted}"]`).waitFor();
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

/** The same browser fetching the same list and parsing it, timed inside the page. */
async function fetchAndParse(browser: Browser, url: string): Promise<number> {
  const context = await browser.newContext();
  try {
    const page: Page = await context.newPage();
    // A same-origin page that is not the app, so nothing else competes with the fetch.
    await page.goto(`${url}/ui/favicon.svg`);
    return await page.evaluate(async (path) => {
      const started = performance.now();
      const apps = (await (await fetch(path, { headers: { accept: 'application/json' } })).json()) as unknown[];
      if (!Array.isArray(apps) || apps.length === 0) throw new Error('no applications');
      return performance.now() - started;
    }, `${new URL(url).pathname.replace(/\/$/, '')}/applications`);
  } finally {
    await context.close();
  }
}
