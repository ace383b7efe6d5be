import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { ProblemsError } from '../../../core/errors.js';
import { channelSchema, defineChannel, type ChannelSection, type Notification } from '../../../core/kits/notify-channel/index.js';
import type { ConfigSchema, VigilPlugin } from '../../../core/plugin-api.js';
import { eventually } from '../../support/http.js';
import { repoRoot } from '../../support/paths.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

/**
 * Issue 32, items 1, 2 and 6: targets per channel and `notify.routes`. Two webhook receivers
 * stand for two teams: the shared channel and the payments team's.
 */
const SECRET_PATH = '/hook/T0ACME/PaymentsS3cret';
let shared: Receiver | undefined;
let payments: Receiver | undefined;
let tk: TestKernel | undefined;

test.before.each(async () => {
  shared = await Receiver.start();
  payments = await Receiver.start();
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await shared?.close();
  await payments?.close();
});

interface Body { readonly type: string; readonly instance?: { readonly id: string; readonly name: string }; readonly application?: string; readonly to?: string }
const bodyOf = (received: Received): Body => received.json as Body;
const idsOf = (receiver: Receiver): string[] => receiver.requests.map((r) => bodyOf(r).instance?.id ?? `app:${bodyOf(r).application}`).sort();

/** Waits until every target has delivered `total` notifications between them and nothing is queued. */
async function settled(k: TestKernel, total: number): Promise<Array<Record<string, unknown>>> {
  let channels: Array<Record<string, unknown>> = [];
  await eventually(async () => {
    channels = (await notificationsStatus(k)).channels;
    const delivered = channels.reduce((sum, channel) => sum + (channel.delivered as number), 0);
    const queued = channels.reduce((sum, channel) => sum + (channel.queued as number), 0);
    return delivered === total && queued === 0;
  }, `${total} deliveries`, 10_000);
  return channels;
}

function webhooks(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    notify: { 'per-instance-rate': 0, ...extra },
    'notify-webhook': { url: `${shared!.url}/shared`, targets: { payments: { url: `${payments!.url}${SECRET_PATH}` } } },
  };
}

test('targets: one entry per target in GET /notifications, secrets masked; without routes only the default target hears', async () => {
  tk = await notifyKernel(['notify-webhook', 'metrics'], webhooks());
  const status = await notificationsStatus(tk);
  assert.equal(status.channels.map((c) => [c.name, c.channel, c.target, c.enabled]), [
    ['notify-webhook', 'notify-webhook', `${shared!.url}/******`, true],
    ['notify-webhook:payments', 'notify-webhook', `${payments!.url}/******`, true],
  ]);
  assert.not.ok(JSON.stringify(status).includes('PaymentsS3cret'), 'the target\'s URL path is a secret');
  const id = await registerInstance(tk, 'payments-api');
  await setStatus(tk, id, 'DOWN');
  const channels = await settled(tk, 1);
  assert.equal(channels.map((c) => [c.name, c.delivered]), [['notify-webhook', 1], ['notify-webhook:payments', 0]]);
  assert.equal(idsOf(shared!), [id]);
  assert.equal(payments!.requests.length, 0);
  const metrics = await (await fetch(`${tk.url}/metrics`)).text();
  assert.match(metrics, /^vigil_notifications_total\{channel="notify-webhook",target="notify-webhook:payments",outcome="delivered"\} 0$/m);
  assert.match(metrics, /^vigil_notifications_total\{channel="notify-webhook",target="notify-webhook",outcome="delivered"\} 1$/m);
  assert.not.ok(metrics.includes('PaymentsS3cret'));
});

test('routes: two teams each get exactly their applications\' notifications (by application glob and by metadata)', async () => {
  tk = await notifyKernel(['notify-webhook'], webhooks({
    routes: [
      { applications: ['payments-*'], to: ['notify-webhook:payments'] },
      { metadata: { team: 'pay*' }, to: ['notify-webhook:payments'] },
      { to: ['notify-webhook'] },
    ],
  }));
  const api = await registerInstance(tk, 'payments-api');
  const worker = await registerInstance(tk, 'payments-worker');
  const billing = await registerInstance(tk, 'billing', { metadata: { team: 'payments' } });
  const orders = await registerInstance(tk, 'orders', { metadata: { team: 'orders' } });
  const shop = await registerInstance(tk, 'shop');
  for (const id of [api, worker, billing, orders, shop]) await setStatus(tk, id, 'DOWN');
  const channels = await settled(tk, 5);
  assert.equal(channels.map((c) => [c.name, c.delivered, c.failed]), [['notify-webhook', 2, 0], ['notify-webhook:payments', 3, 0]]);
  assert.equal(idsOf(payments!), [api, worker, billing].sort());
  assert.equal(idsOf(shared!), [orders, shop].sort());
  assert.ok(payments!.requests.every((r) => r.url === SECRET_PATH));
  assert.is((await notificationsStatus(tk)).pipeline.unrouted, 0);
});

test('routes: the first match decides unless it says continue; types and statuses narrow a route', async () => {
  tk = await notifyKernel(['notify-webhook'], webhooks({
    routes: [
      { applications: ['payments-*'], statuses: ['down', 'OFFLINE'], to: ['notify-webhook:payments'], continue: true },
      { applications: ['payments-*'], types: ['STATUS_CHANGED'], to: ['notify-webhook'] },
      { to: ['notify-webhook'], types: ['REGISTERED'] },
    ],
    on: ['STATUS_CHANGED', 'REGISTERED'],
  }));
  const api = await registerInstance(tk, 'payments-api');
  await settled(tk, 1); // its REGISTERED: the third route, to the shared channel
  await setStatus(tk, api, 'DOWN'); // both first routes: to both teams
  await settled(tk, 3);
  await setStatus(tk, api, 'UP'); // not DOWN or OFFLINE: only the second route
  const channels = await settled(tk, 4);
  assert.equal(channels.map((c) => [c.name, c.delivered]), [['notify-webhook', 3], ['notify-webhook:payments', 1]]);
  assert.equal(shared!.requests.map((r) => [bodyOf(r).type, bodyOf(r).to]), [['REGISTERED', 'UNKNOWN'], ['STATUS_CHANGED', 'DOWN'], ['STATUS_CHANGED', 'UP']]);
  assert.equal(payments!.requests.map((r) => [bodyOf(r).type, bodyOf(r).to]), [['STATUS_CHANGED', 'DOWN']]);
});

test('routes: a notification no route matches is counted as unrouted and sent nowhere', async () => {
  tk = await notifyKernel(['notify-webhook'], webhooks({ routes: [{ applications: ['payments-*'], to: ['notify-webhook:payments'] }] }));
  const orders = await registerInstance(tk, 'orders');
  const api = await registerInstance(tk, 'payments-api');
  await setStatus(tk, orders, 'DOWN');
  await setStatus(tk, api, 'DOWN');
  await settled(tk, 1);
  await eventually(async () => (await notificationsStatus(tk!)).pipeline.unrouted === 1, 'one unrouted', 10_000);
  assert.equal(idsOf(payments!), [api]);
  assert.equal(shared!.requests.length, 0);
});

test('routes: fleet expectations are routed by application and type like any notification', async () => {
  tk = await notifyKernel(['notify-webhook'], webhooks({
    expectations: [{ applications: ['*'], 'min-up': 1, for: '1s' }],
    routes: [
      { applications: ['payments-*'], types: ['APPLICATION_DEGRADED', 'APPLICATION_RECOVERED'], to: ['notify-webhook:payments'] },
      { types: ['APPLICATION_DEGRADED', 'APPLICATION_RECOVERED'], to: ['notify-webhook'] },
    ],
  }));
  const api = await registerInstance(tk, 'payments-api');
  const orders = await registerInstance(tk, 'orders');
  await setStatus(tk, api, 'UP');
  await setStatus(tk, orders, 'UP');
  await setStatus(tk, api, 'DOWN');
  await setStatus(tk, orders, 'DOWN');
  await settled(tk, 2);
  assert.equal(payments!.requests.map((r) => [bodyOf(r).type, bodyOf(r).application]), [['APPLICATION_DEGRADED', 'payments-api']]);
  assert.equal(shared!.requests.map((r) => [bodyOf(r).type, bodyOf(r).application]), [['APPLICATION_DEGRADED', 'orders']]);
  assert.is((await notificationsStatus(tk)).pipeline.unrouted, 2, 'the status changes matched no route');
});

test('routes: storm summaries are built per target, from what each target was routed', async () => {
  tk = await notifyKernel(['notify-webhook'], webhooks({
    'self-preservation': 50, 'self-preservation-min': 4, 'self-preservation-window': 2000,
    routes: [{ applications: ['payments-*'], to: ['notify-webhook:payments'] }, { to: ['notify-webhook'] }],
  }));
  const ids: string[] = [];
  for (const name of ['payments-a', 'payments-b', 'payments-c', 'orders-a', 'orders-b']) ids.push(await registerInstance(tk, name));
  const before = { shared: shared!.requests.length, payments: payments!.requests.length };
  for (const id of ids) await setStatus(tk, id, 'OFFLINE');
  await settled(tk, 2);
  const summaryOf = (receiver: Receiver, skip: number) => receiver.requests.slice(skip).map((r) => r.json as { type: string; count: number; instances: { id: string }[] });
  const paid = summaryOf(payments!, before.payments);
  const rest = summaryOf(shared!, before.shared);
  assert.equal(paid.map((s) => [s.type, s.count, s.instances.map((i) => i.id).sort()]), [['SELF_PRESERVATION', 3, ids.slice(0, 3).sort()]]);
  assert.equal(rest.map((s) => [s.type, s.count, s.instances.map((i) => i.id).sort()]), [['SELF_PRESERVATION', 2, ids.slice(3).sort()]]);
});

/** The problems a config is refused with (none: it starts). */
async function problemsOf(plugins: readonly string[], config: Record<string, unknown>): Promise<string[]> {
  try {
    tk = await notifyKernel(plugins, config);
    return [];
  } catch (error) {
    if (error instanceof ProblemsError) return [...error.problems];
    throw error;
  }
}

test('config: a route naming an unknown target is refused with the nearest name; a target\'s keys are checked as it runs', async () => {
  const problems = await problemsOf(['notify-webhook'], {
    'notify-webhook': { url: 'http://127.0.0.1:9/x', targets: { payments: { url: 'http://127.0.0.1:9/y' } } },
    notify: { routes: [{ to: ['notify-webhook:payment'] }, { to: ['notify-slack'] }] },
  });
  assert.equal(problems, [
    'plugin "notify": notify.routes[0].to[0]: "notify-webhook:payment" is not a channel target; did you mean "notify-webhook:payments"?',
    'plugin "notify": notify.routes[1].to[0]: "notify-slack" is not a channel target (targets: notify-webhook, notify-webhook:payments)',
  ]);
  assert.equal(await problemsOf(['notify-webhook'], { 'notify-webhook': { targets: { payments: { url: 'ftp://x', colour: 'red' } } } }), [
    'plugin "notify-webhook": notify-webhook.targets.payments: has unknown key(s): colour',
    'plugin "notify-webhook": notify-webhook.targets.payments.url: must be an absolute http:// or https:// URL',
  ].sort());
  assert.equal(await problemsOf(['notify-webhook'], { 'notify-webhook': { targets: { 'bad name': {} } } }),
    ['plugin "notify-webhook": notify-webhook.targets: "bad name" is not a target name (letters, digits, \'_\' and \'-\', at most 64)']);
});

/** `node bin/vigil.js --check-config` on a config file. */
function checkConfig(yaml: string): Promise<{ code: number | null; output: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-routes-'));
  const file = join(dir, 'vigil.yaml');
  writeFileSync(file, yaml);
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'bin', 'vigil.js'), '--config', file, '--check-config'], { cwd: dir });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString('utf8'); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

test('--check-config warns when the last route has matchers, and not when it catches the rest', async () => {
  const head = 'plugins: [rest-api, notify, notify-webhook]\nnotify-webhook:\n  url: http://127.0.0.1:9/x\n  targets:\n    payments: { url: "http://127.0.0.1:9/y" }\nnotify:\n  routes:\n    - applications: ["payments-*"]\n      to: [notify-webhook:payments]\n';
  const open = await checkConfig(head);
  assert.is(open.code, 0, open.output);
  assert.match(open.output, /warning: notify\.routes: the last route has matchers, so notifications no route matches go nowhere/);
  const closed = await checkConfig(`${head}    - to: [notify-webhook]\n`);
  assert.is(closed.code, 0, closed.output);
  assert.not.match(closed.output, /notify\.routes/);
});

interface EchoConfig extends ChannelSection { readonly 'room': string; readonly 'endpoint'?: string }

test('defineChannel gives a third-party channel targets: each its own section, name and delivery', async () => {
  const heard: [string, string, string][] = [];
  const thirdParty = defineChannel<EchoConfig>({
    name: 'notify-echo',
    configSchema: channelSchema({ endpoint: (await import('yup')).string(), room: (await import('yup')).string().default('general') }) as unknown as ConfigSchema<EchoConfig>,
    requires: 'endpoint',
    channel: ({ config, target }) => ({
      async deliver(notification: Notification) {
        heard.push([target, config.room, notification.kind === 'instance' ? notification.instance.name : notification.kind]);
        return { outcome: 'delivered' };
      },
    }),
  });
  tk = await notifyKernel([thirdParty as VigilPlugin<never>], {
    notify: { 'per-instance-rate': 0, routes: [{ applications: ['payments-*'], to: ['notify-echo:payments'] }, { to: ['notify-echo'] }] },
    'notify-echo': { endpoint: 'http://127.0.0.1:9/echo-secret', targets: { payments: { room: 'payments' } } },
  });
  assert.equal((await notificationsStatus(tk)).channels.map((c) => [c.name, c.target]), [
    ['notify-echo', 'http://127.0.0.1:9/******'], ['notify-echo:payments', 'http://127.0.0.1:9/******'],
  ]);
  const api = await registerInstance(tk, 'payments-api');
  const orders = await registerInstance(tk, 'orders');
  await setStatus(tk, api, 'DOWN');
  await setStatus(tk, orders, 'DOWN');
  await settled(tk, 2);
  assert.equal(heard.sort(), [['notify-echo', 'general', 'orders'], ['notify-echo:payments', 'payments', 'payments-api']]);
});

test.run();
