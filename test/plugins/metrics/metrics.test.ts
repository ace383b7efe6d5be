import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LabelledCounts, LabelledHistogram } from '../../../core/kits/runtime/index.js';
import { type PluginContext, type VigilPlugin } from '../../../core/plugin-api.js';
import { METRICS } from '../../../core/kits/services/index.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { parseExposition, valueOf, type Family } from '../../support/exposition.js';

const PLUGINS = ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'metrics'];

async function scrape(tk: TestKernel, headers: Record<string, string> = {}): Promise<Map<string, Family>> {
  const reply = await call('GET', `${tk.url}/metrics`, { headers });
  assert.is(reply.status, 200, reply.text);
  assert.is(reply.headers.get('content-type'), 'text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(reply.text);
}

async function register(tk: TestKernel, fake: FakeActuator, name: string): Promise<string> {
  const reply = await call('POST', `${tk.url}/instances`, { json: fake.registration(name) });
  assert.is(reply.status, 201, reply.text);
  const { id } = reply.json as { id: string };
  await tk.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED', `status of ${name}`);
  return id;
}

test('the registry, checks, streams, proxy and HTTP responses, as read at scrape time', async () => {
  const tk = await startTestKernel({ plugins: PLUGINS });
  const fakes = await Promise.all([FakeActuator.start({ links: ['health', 'info', 'env'] }), FakeActuator.start(), FakeActuator.start()]);
  const stream = new AbortController();
  try {
    fakes[2]!.setHealth(503, { status: 'DOWN' });
    fakes[0]!.on('GET', '/env', { json: { propertySources: [] } });
    const shop = await register(tk, fakes[0]!, 'shop');
    await register(tk, fakes[1]!, 'shop');
    await register(tk, fakes[2]!, 'billing');
    await tk.waitForEvent((event) => event.instance === shop && event.type === 'ENDPOINTS_DETECTED', 'endpoints of shop');
    assert.is((await call('GET', `${tk.url}/instances/${shop}/actuator/env`)).status, 200);
    assert.is((await call('GET', `${tk.url}/instances/${shop}/actuator/nope`)).status, 404);
    assert.is((await call('GET', `${tk.url}/instances/ffffffffffff`)).status, 404);
    const open = await fetch(`${tk.url}/instances/events`, { headers: { accept: 'text/event-stream' }, signal: stream.signal });
    assert.is(open.status, 200);

    const families = await scrape(tk);
    const value = (name: string, labels: Record<string, string> = {}) => valueOf(families, name, labels);
    assert.is(value('vigil_build_info'), 1);
    assert.is(value('vigil_applications'), 2);
    assert.is(value('vigil_instances', { application: 'shop', status: 'UP' }), 2);
    assert.is(value('vigil_instances', { application: 'billing', status: 'DOWN' }), 1);
    // Every known status of every application is a series, zero or not, so alerts need no absent().
    assert.equal(families.get('vigil_instances')!.samples.length, 12);
    assert.is(value('vigil_registrations_total'), 3);
    assert.is(value('vigil_deregistrations_total'), 0);
    assert.is(value('vigil_status_changes_total', { from: 'UNKNOWN', to: 'UP' }), 2);
    assert.is(value('vigil_status_changes_total', { from: 'UNKNOWN', to: 'DOWN' }), 1);
    assert.is(value('vigil_events_held'), tk.kernel.registry.events().length);
    assert.is(value('vigil_sse_subscribers'), 1);
    assert.is(value('vigil_proxy_requests_total', { code_class: '2xx' }), 1);
    assert.is(value('vigil_proxy_requests_total', { code_class: '4xx' }), 1);
    const statusChecks = value('vigil_checks_total', { kind: 'status', result: 'success' })!;
    assert.ok(statusChecks >= 3, `${statusChecks} status checks`);
    assert.is(value('vigil_check_duration_seconds_count', { kind: 'status' }), statusChecks + (value('vigil_checks_total', { kind: 'status', result: 'failure' }) ?? 0));
    // The follow-ups' line: its cap is the configured 16 or less (the test process may keep its loop busy).
    const limit = value('vigil_follow_up_limit')!;
    assert.ok(Number.isInteger(limit) && limit >= 1 && limit <= 16, `follow-up limit ${limit}`);
    assert.ok(Number.isInteger(value('vigil_follow_ups_waiting')), 'follow-ups waiting');
    assert.is(value('vigil_http_requests_total', { method: 'POST', route: '/instances', code_class: '2xx' }), 3);
    assert.is(value('vigil_http_requests_total', { method: 'GET', route: '/instances/:id/actuator/*', code_class: '2xx' }), 1);
    assert.is(value('vigil_http_requests_total', { method: 'GET', route: '/instances/:id', code_class: '4xx' }), 1);
    assert.ok(families.get('process_cpu_user_seconds_total') && families.get('nodejs_heap_size_used_bytes'), 'the process and Node.js defaults');
    assert.is(families.get('vigil_instance_up'), undefined, 'per-instance series are off by default');

    // Labels are bounded: routes are patterns, and Prometheus's own label names are never used.
    const routes = new Set(['unmatched', ...PLUGIN_ROUTES]);
    for (const family of families.values()) {
      for (const sample of family.samples) {
        assert.not.ok('instance' in sample.labels || 'job' in sample.labels, `${sample.name} has no instance or job label`);
        if (sample.name === 'vigil_http_requests_total') assert.ok(routes.has(sample.labels.route!), `route ${sample.labels.route}`);
      }
    }

    // Values are read when scraped: a status change shows without anything else happening.
    fakes[2]!.setHealth(200, { status: 'UP' });
    await call('POST', `${tk.url}/applications`);
    await tk.waitForEvent((event) => event.type === 'STATUS_CHANGED' && event.statusInfo.status === 'UP' && event.version > 1, 'billing up');
    assert.is(valueOf(await scrape(tk), 'vigil_instances', { application: 'billing', status: 'UP' }), 1);
  } finally {
    stream.abort();
    await tk.stop();
    await Promise.all(fakes.map((fake) => fake.close()));
  }
});

/** The patterns the routes of PLUGINS are registered with (plus /metrics). */
const PLUGIN_ROUTES = ['/instances', '/instances/events', '/instances/:id', '/instances/:id/events', '/applications', '/applications/events', '/applications/:name',
  '/instances/:id/actuator', '/instances/:id/actuator/*', '/applications/:name/actuator', '/applications/:name/actuator/*', '/metrics'];

test('per-instance: one vigil_instance_up per registered instance, gone on deregistration; switched by reload', async () => {
  const tk = await startTestKernel({ plugins: PLUGINS, config: { metrics: { 'per-instance': true } } });
  const fakes = await Promise.all([FakeActuator.start(), FakeActuator.start()]);
  try {
    fakes[1]!.setHealth(503, { status: 'DOWN' });
    const up = await register(tk, fakes[0]!, 'shop');
    const down = await register(tk, fakes[1]!, 'shop');
    let families = await scrape(tk);
    assert.is(valueOf(families, 'vigil_instance_up', { application: 'shop', instance_id: up }), 1);
    assert.is(valueOf(families, 'vigil_instance_up', { application: 'shop', instance_id: down }), 0);
    assert.is((await call('DELETE', `${tk.url}/instances/${down}`)).status, 204);
    families = await scrape(tk);
    assert.equal(families.get('vigil_instance_up')!.samples.map((sample) => sample.labels.instance_id), [up]);
    assert.is(valueOf(families, 'vigil_deregistrations_total'), 1);
    assert.equal((await tk.reload({ metrics: { 'per-instance': false } })).applied, ['metrics']);
    assert.is((await scrape(tk)).get('vigil_instance_up'), undefined);
  } finally {
    await tk.stop();
    await Promise.all(fakes.map((fake) => fake.close()));
  }
});

test('a plugin contributes its own families through METRICS, with no metrics library', async () => {
  const deliveries = new LabelledCounts(['channel', 'result']);
  const latency = new LabelledHistogram([0.1, 1], ['channel']);
  const notifier = {
    name: 'notifier',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.services.contribute(METRICS, { name: 'vigil_notifications_total', help: 'Deliveries', type: 'counter', labelNames: ['channel', 'result'], collect: () => deliveries.samples() });
      ctx.services.contribute(METRICS, { name: 'vigil_notification_queue_length', help: 'Waiting "deliveries"\nnow', type: 'gauge', collect: async () => [{ value: 3 }] });
      ctx.services.contribute(METRICS, { name: 'vigil_notification_seconds', help: 'Latency', type: 'histogram', labelNames: ['channel'], buckets: latency.buckets, collect: () => latency.samples() });
    },
  } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: ['metrics', notifier] });
  try {
    deliveries.inc({ channel: 'slack "ops"\\x', result: 'sent' });
    deliveries.inc({ channel: 'slack "ops"\\x', result: 'sent' }, 2);
    for (const seconds of [0.05, 0.5, 3]) latency.observe(seconds, { channel: 'mail' });
    const families = await scrape(tk);
    // Label values and help text are escaped, and read back unchanged.
    assert.is(valueOf(families, 'vigil_notifications_total', { channel: 'slack "ops"\\x', result: 'sent' }), 3);
    assert.is(families.get('vigil_notification_queue_length')!.help, 'Waiting "deliveries"\nnow');
    assert.is(valueOf(families, 'vigil_notification_queue_length'), 3);
    assert.equal(families.get('vigil_notification_seconds')!.samples.map((s) => [s.name, s.labels.le ?? '', s.value]), [
      ['vigil_notification_seconds_bucket', '0.1', 1],
      ['vigil_notification_seconds_bucket', '1', 2],
      ['vigil_notification_seconds_bucket', '+Inf', 3],
      ['vigil_notification_seconds_sum', '', 3.55],
      ['vigil_notification_seconds_count', '', 3],
    ]);
  } finally {
    await tk.stop();
  }
});

test('a family that breaks the naming rules stops start-up, naming it', async () => {
  const bad = {
    name: 'bad-metrics',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.services.contribute(METRICS, { name: 'vigil_jobs', help: 'x', type: 'counter', labelNames: ['instance'], collect: () => [] });
      ctx.services.contribute(METRICS, { name: 'jobs_total', help: 'x', type: 'counter', collect: () => [] });
      ctx.services.contribute(METRICS, { name: 'vigil_depth_total', help: 'x', type: 'gauge', collect: () => [] });
      ctx.services.contribute(METRICS, { name: 'vigil_wait_seconds', help: 'x', type: 'histogram', buckets: [1, 0.5], collect: () => [] });
      ctx.services.contribute(METRICS, { name: 'vigil_applications', help: 'again', type: 'gauge', collect: () => [] });
    },
  } as VigilPlugin<never>;
  try {
    await startTestKernel({ plugins: ['metrics', bad] });
    assert.unreachable('started');
  } catch (error) {
    const message = (error as Error).message;
    assert.match(message, /^plugin "metrics" failed in start: /);
    for (const expected of [
      'metric "vigil_jobs": a counter\'s name ends in _total',
      'metric "vigil_jobs": label "instance" is not allowed',
      'metric "jobs_total": the name must be vigil_ followed by snake_case',
      'metric "vigil_depth_total": only a counter\'s name ends in _total',
      'metric "vigil_wait_seconds": buckets must be finite, increasing upper bounds',
      'metric "vigil_applications" is contributed twice',
    ]) assert.ok(message.includes(expected), `${expected} in ${message}`);
  }
});

test.run();
