import type { Browser, Page } from 'playwright-core';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';

export interface OpenedPage {
  readonly page: Page;
  /** Uncaught exceptions and console errors (a CSP violation is one). */
  readonly errors: string[];
  /** `METHOD /path` of every request the page sent, in order. */
  readonly requests: string[];
  close(): Promise<void>;
}

/** Opens `url` in a fresh browser context (its own cookies and credentials) and records what happens. */
export async function openPage(browser: Browser, url: string, credentials?: { username: string; password: string }): Promise<OpenedPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...(credentials ? { httpCredentials: credentials } : {}) });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') errors.push(message.text()); });
  page.on('request', (request) => { requests.push(`${request.method()} ${new URL(request.url()).pathname}`); });
  await page.goto(url);
  return { page, errors, requests, close: () => context.close() };
}

/** How many requests matched `METHOD /path` exactly. */
export const countOf = (requests: readonly string[], request: string): number => requests.filter((r) => r === request).length;

export interface Fleet {
  readonly tk: TestKernel;
  /** shop: one UP, one DOWN; billing: one UP with every actuator view. */
  readonly shopUp: FakeActuator;
  readonly shopDown: FakeActuator;
  readonly billing: FakeActuator;
  readonly ids: { readonly shopUp: string; readonly shopDown: string; readonly billing: string };
  stop(): Promise<void>;
}

const VIEWS = ['health', 'info', 'metrics', 'loggers', 'env', 'threaddump', 'heapdump', 'restart'];

/** A daemon with the default plugins (monitoring polls fast) and three real fake instances, their statuses settled. */
export async function startFleet(): Promise<Fleet> {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'ui'],
    config: { 'log-level': 'warn', monitor: { 'status-interval': '100ms', 'status-lifetime': 0 } },
  });
  const shopUp = await FakeActuator.start({ health: { status: 'UP', components: { db: { status: 'UP', details: { database: 'PostgreSQL' } } } } });
  const shopDown = await FakeActuator.start();
  shopDown.setHealth(503, { status: 'DOWN' });
  const billing = await FakeActuator.start({ links: VIEWS, info: { build: { version: '3.1.4' } } });
  const ids = {
    shopUp: await register(tk, shopUp.registration('shop')),
    shopDown: await register(tk, shopDown.registration('shop')),
    billing: await register(tk, billing.registration('billing', { metadata: { 'tags.env': 'prod', 'db.password': 'hunter2', zone: 'eu-1' } })),
  };
  const settled = (id: string, status: string) => tk.waitForEvent((e) => e.instance === id && e.type === 'STATUS_CHANGED' && e.statusInfo.status === status, `${id} ${status}`);
  await Promise.all([settled(ids.shopUp, 'UP'), settled(ids.shopDown, 'DOWN'), settled(ids.billing, 'UP'),
    tk.waitForEvent((e) => e.instance === ids.billing && e.type === 'ENDPOINTS_DETECTED', 'billing endpoints')]);
  return {
    tk, shopUp, shopDown, billing, ids,
    async stop() {
      await tk.stop();
      await Promise.all([shopUp.close(), shopDown.close(), billing.close()]);
    },
  };
}

export async function register(tk: TestKernel, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<string> {
  const res = await call('POST', `${tk.url}/instances`, { json: body, headers });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return (res.json as { id: string }).id;
}
