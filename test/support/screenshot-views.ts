import type { Page } from 'playwright-core';

interface Shots {
  /** Navigates and waits for the live stream and for `ready`. */
  open(page: Page, url: string, ready: string): Promise<void>;
  /** The viewport as `docs/screenshots/<name>-light.png` and `-dark.png`. */
  shoot(page: Page, name: string): Promise<void>;
}

/**
 * The instance views, the application page and About, for `npm run screenshots`: each opened on
 * the first `billing` instance (a fake Spring Boot 3 service with every endpoint) and brought to
 * a state worth showing (a search typed, a row picked, a chart given time to fill).
 */
export async function shootViews(page: Page, url: string, billing: string, { open, shoot }: Shots): Promise<void> {
  const view = (name: string) => `${url}/#/instances/${billing}/${name}`;
  const simple: readonly [string, string, string][] = [
    ['configprops', '.vtable-row', 'instance-configprops'],
    ['conditions', '.vtable-row', 'instance-conditions'],
    ['scheduledtasks', 'article[aria-label=Cron]', 'instance-scheduledtasks'],
    ['caches', 'tr[data-cache]', 'instance-caches'],
    ['flyway', '.vtable-row', 'instance-flyway'],
    ['liquibase', '.vtable-row', 'instance-liquibase'],
    ['startup', '.startup-row', 'instance-startup'],
    ['sbom', '.vtable-row', 'instance-sbom'],
    ['gateway', 'tr[data-route]', 'instance-gateway'],
    ['auditevents', '.vtable-row', 'instance-auditevents'],
  ];

  await open(page, view('details'), 'article[aria-label="Memory pools"]');
  // A minute of samples, so the charts have a shape.
  await page.waitForTimeout(30_000);
  await shoot(page, 'instance-details');

  await open(page, view('logfile'), '.log-line');
  await page.getByLabel('Search the log').fill('timed out');
  await page.locator('.log-line.focused').waitFor();
  await shoot(page, 'instance-logfile');

  await open(page, view('beans'), '.vtable-row');
  await page.locator('.vtable-row[data-key$="/dataSource"]').click();
  await shoot(page, 'instance-beans');

  await open(page, view('mappings'), '.vtable-row');
  await page.locator('.vtable-row', { hasText: '/payments' }).click();
  await shoot(page, 'instance-mappings');

  await open(page, view('httpexchanges'), '.vtable-row');
  await page.locator('.vtable-row', { hasText: '502' }).click();
  await shoot(page, 'instance-httpexchanges');

  for (const [name, ready, file] of simple) {
    await open(page, view(name), ready);
    await shoot(page, file);
  }

  await open(page, view('env'), '.props th');
  await page.getByLabel('Property name').fill('billing.reminder-days');
  await page.getByLabel('Property value').fill('21');
  await shoot(page, 'instance-env');

  await open(page, view('sessions'), 'input[aria-label="User name"]');
  await page.getByLabel('User name').fill('alice');
  await page.getByRole('button', { name: 'Search' }).click();
  await page.locator('tr[data-session]').first().waitFor();
  await shoot(page, 'instance-sessions');

  await open(page, view('quartz'), 'article[aria-label=Jobs]');
  await page.getByText('reports.dailyReport').click();
  await shoot(page, 'instance-quartz');

  await open(page, view('jmx'), '.jmx-domain');
  await page.getByLabel('Search MBeans').fill('invoice');
  await page.getByRole('treeitem', { name: 'name=invoiceService,type=InvoiceService' }).click();
  const operation = page.locator('form[data-operation="sendReminders"]');
  await operation.getByLabel('sendReminders argument customer').fill('4711');
  await operation.getByLabel('sendReminders argument dryRun').fill('false');
  await operation.getByRole('button', { name: 'Invoke' }).click();
  await operation.getByRole('status').waitFor();
  await shoot(page, 'instance-jmx');

  await open(page, view('threads'), '.thread-list summary');
  await page.getByRole('button', { name: 'Timeline' }).click();
  await page.waitForTimeout(20_000);
  await shoot(page, 'instance-threads');

  await open(page, `${url}/#/applications/billing/loggers`, '[data-logger]');
  await page.locator('[data-logger="com.example.billing"]').getByRole('button', { name: 'DEBUG' }).click();
  await page.getByText('2 of 2 instances succeeded').waitFor();
  await shoot(page, 'application-loggers');

  await open(page, `${url}/#/about`, 'pre.config');
  await shoot(page, 'about');
}
