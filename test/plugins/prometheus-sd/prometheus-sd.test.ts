import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import type { Logger, Outbound } from '../../../core/plugin-api.js';
import { labelName, withoutUserinfo } from '../../../plugins/prometheus-sd/target-group.js';
import { TargetPolicy } from '../../../plugins/prometheus-sd/target-policy.js';

const silentLog: Logger = { error() {}, warn() {}, info() {}, debug() {}, child: () => silentLog };
import { call } from '../../support/http.js';

interface Group {
  readonly targets: string[];
  readonly labels: Record<string, string>;
}

async function sd(tk: TestKernel, query = ''): Promise<Group[]> {
  const reply = await call('GET', `${tk.url}/prometheus/sd${query}`);
  assert.is(reply.status, 200, reply.text);
  // Prometheus accepts only this media type (with or without the charset).
  assert.is(reply.headers.get('content-type'), 'application/json; charset=utf-8');
  return reply.json as Group[];
}

async function register(tk: TestKernel, body: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${tk.url}/instances`, { json: body });
  assert.is(reply.status, 201, reply.text);
  return (reply.json as { id: string }).id;
}

// Prometheus 2.x label names (prometheus/common model.LabelName.IsValid, legacy rule).
const VALID_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;

test('the whole list every time: [] when empty, one target group per registered instance', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'], config: { 'context-path': '/admin' } });
  try {
    assert.equal(await sd(tk), []);
    const shop = await register(tk, { name: 'shop', healthUrl: 'http://10.0.0.5:8081/actuator/health', managementUrl: 'http://10.0.0.5:8081/actuator', serviceUrl: 'http://10.0.0.5:8080/' });
    const plain = await register(tk, { name: 'billing', healthUrl: 'https://billing.internal/manage/health' });
    const groups = await sd(tk);
    assert.equal(groups.find((group) => group.labels.__meta_vigil_instance_id === shop), {
      targets: ['10.0.0.5:8081'],
      labels: {
        __scheme__: 'http',
        __metrics_path__: '/actuator/prometheus',
        __meta_vigil_application: 'shop',
        __meta_vigil_instance_id: shop,
        __meta_vigil_status: 'UNKNOWN',
        __meta_vigil_service_url: 'http://10.0.0.5:8080/',
      },
    });
    // No management URL: `prometheus` next to the health endpoint, on the scheme's default port.
    const billing = groups.find((group) => group.labels.__meta_vigil_instance_id === plain)!;
    assert.equal(billing.targets, ['billing.internal:443']);
    assert.is(billing.labels.__scheme__, 'https');
    assert.is(billing.labels.__metrics_path__, '/manage/prometheus');
    assert.is((await call('DELETE', `${tk.url}/instances/${plain}`)).status, 204);
    assert.equal((await sd(tk)).map((group) => group.labels.__meta_vigil_instance_id), [shop]);
  } finally {
    await tk.stop();
  }
});

test('the detected prometheus endpoint wins; its query becomes __param_ labels', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  try {
    const id = await register(tk, { name: 'shop', healthUrl: 'http://[::1]:9000/mgmt/health', managementUrl: 'http://[::1]:9000/mgmt' });
    const { detectEndpointsCommand } = await import('../../../core/plugin-api.js');
    await tk.kernel.registry.apply(id, detectEndpointsCommand([{ id: 'prometheus', url: 'http://[::1]:9100/custom/metrics?format=text&x-y=1' }]));
    const [group] = await sd(tk);
    assert.equal(group!.targets, ['[::1]:9100']);
    assert.is(group!.labels.__metrics_path__, '/custom/metrics');
    assert.is(group!.labels.__param_format, 'text');
    assert.not.ok(Object.keys(group!.labels).some((name) => name.includes('-')), 'no invalid __param_ name');
  } finally {
    await tk.stop();
  }
});

test('label names are valid for Prometheus 2.x, values sanitised, and no credential in any label', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'prometheus-sd'],
    config: {
      'metadata-keys-to-sanitize': ['.*password$', '.*token$', 'internal\\..*'],
      'prometheus-sd': { 'metadata-labels': ['user.name', 'user.password', 'management.context-path', 'api-token', 'internal.key', 'db-url', 'callback.url', 'tags.env', 'tags.zone-id', '9lives', 'a.b', 'a-b'] },
    },
  });
  try {
    await register(tk, {
      name: 'vault',
      healthUrl: 'http://ops:health-secret-1@10.0.0.9:8081/actuator/health',
      managementUrl: 'http://ops:mgmt-secret-2@10.0.0.9:8081/actuator',
      serviceUrl: 'http://svc:svc-secret-3@10.0.0.9:8080/',
      metadata: {
        'user.name': 'scraper',
        'user.password': 'meta-secret-4',
        'management.context-path': '/actuator',
        'api-token': 'meta-secret-5',
        'internal.key': 'meta-secret-6',
        'db-url': 'jdbc:postgresql://db/app?user=x',
        'callback.url': 'https://hook:meta-secret-7@example.com/hook',
        'tags.env': 'prod',
        'tags.zone-id': 'eu-1a',
        '9lives': 'cat',
        'a.b': 'first',
        'a-b': 'second',
      },
    });
    const [group] = await sd(tk);
    const labels = group!.labels;
    for (const name of Object.keys(labels)) assert.match(name, VALID_NAME, `label name ${name}`);
    const text = JSON.stringify(group);
    for (const secret of ['health-secret-1', 'mgmt-secret-2', 'svc-secret-3', 'meta-secret-4', 'meta-secret-5', 'meta-secret-6', 'meta-secret-7', 'ops:', 'svc:', 'hook:']) {
      assert.not.ok(text.includes(secret), `${secret} leaked: ${text}`);
    }
    assert.equal(group!.targets, ['10.0.0.9:8081']);
    assert.is(labels.__meta_vigil_service_url, 'http://10.0.0.9:8080/');
    assert.is(labels.__meta_vigil_metadata_user_password, '******');
    assert.is(labels.__meta_vigil_metadata_api_token, '******');
    assert.is(labels.__meta_vigil_metadata_internal_key, '******');
    assert.is(labels.__meta_vigil_metadata_management_context_path, '/actuator');
    assert.is(labels.__meta_vigil_metadata_callback_url, 'https://example.com/hook');
    assert.is(labels.__meta_vigil_metadata_9lives, 'cat');
    assert.is(labels.__meta_vigil_metadata_a_b, 'second', 'of two keys with one sanitised name, the first in key order ("a-b") keeps it');
    assert.is(labels.__meta_vigil_tag_env, 'prod');
    assert.is(labels.__meta_vigil_tag_zone_id, 'eu-1a');
    assert.is(labels.__meta_vigil_metadata_tags_env, undefined, 'tags.* metadata only as tags');
  } finally {
    await tk.stop();
  }
});

test('metadata and tags become labels only when prometheus-sd.metadata-labels names them (default none)', async () => {
  const metadata = { zone: 'eu-1', 'db.password': 'meta-secret-8', 'internal.note': 'only for /instances', 'tags.env': 'prod', 'tags.owner': 'team-a' };
  const plain = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  const chosen = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'], config: { 'prometheus-sd': { 'metadata-labels': ['zone', 'db.password', 'tags.env', 'absent'] } } });
  try {
    await register(plain, { name: 'shop', healthUrl: 'http://10.0.0.5:8081/actuator/health', metadata });
    const [group] = await sd(plain);
    assert.equal(Object.keys(group!.labels).filter((name) => name.startsWith('__meta_vigil_metadata_') || name.startsWith('__meta_vigil_tag_')), []);
    assert.not.ok(JSON.stringify(group).includes('only for /instances'));

    await register(chosen, { name: 'shop', healthUrl: 'http://10.0.0.5:8081/actuator/health', metadata });
    const [labelled] = await sd(chosen);
    const extra = Object.fromEntries(Object.entries(labelled!.labels).filter(([name]) => name.startsWith('__meta_vigil_metadata_') || name.startsWith('__meta_vigil_tag_')));
    assert.equal(extra, { __meta_vigil_metadata_zone: 'eu-1', __meta_vigil_metadata_db_password: '******', __meta_vigil_tag_env: 'prod' });
  } finally {
    await plain.stop();
    await chosen.stop();
  }
  const problems = await checkPlugin('prometheus-sd', { 'prometheus-sd': { 'metadata-labels': 'zone', typo: 1 } });
  assert.ok(problems.some((problem) => problem.includes('prometheus-sd.metadata-labels')), problems.join('\n'));
  assert.ok(problems.some((problem) => problem.includes('prometheus-sd: unknown key(s): typo')), problems.join('\n'));
});

test('__param_ labels only from a detected endpoint: a registered URL\'s query is never passed on', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  try {
    const id = await register(tk, {
      name: 'purge',
      healthUrl: 'http://10.0.0.7:21001/internal/admin/health?confirm=yes&token=abc',
      managementUrl: 'http://10.0.0.7:21001/internal/admin/purge?confirm=yes&token=abc#frag',
    });
    const [group] = await sd(tk);
    assert.equal(group!.targets, ['10.0.0.7:21001']);
    assert.is(group!.labels.__metrics_path__, '/internal/admin/purge/prometheus');
    assert.equal(Object.keys(group!.labels).filter((name) => name.startsWith('__param_')), []);
    assert.not.ok(JSON.stringify(group).includes('confirm'));

    const { detectEndpointsCommand } = await import('../../../core/plugin-api.js');
    await tk.kernel.registry.apply(id, detectEndpointsCommand([{ id: 'prometheus', url: 'http://10.0.0.7:21001/internal/admin/prometheus?format=openmetrics' }]));
    const [detected] = await sd(tk);
    assert.is(detected!.labels.__param_format, 'openmetrics', 'the detected endpoint\'s own query is kept');
  } finally {
    await tk.stop();
  }
});

test('with ssrf-protection on, only targets Vigil itself may call are listed (IP literals, names after DNS, allowed-cidrs)', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'prometheus-sd'],
    config: { 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['10.1.0.0/16'] } },
  });
  const open = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  try {
    const registrations = {
      loopback: 'http://127.0.0.1:21001/internal/admin/health',
      private: 'http://192.168.1.20:8080/actuator/health',
      metadata: 'http://169.254.169.254/latest/health',
      shared: 'http://100.64.0.9:8080/actuator/health',
      nat64: 'http://[64:ff9b::7f00:1]:8080/actuator/health',
      mapped: 'http://[::ffff:10.0.0.1]:8080/actuator/health',
      name: 'http://localhost:8080/actuator/health',
      allowed: 'http://10.1.2.3:8080/actuator/health',
      public: 'http://93.184.216.34:8080/actuator/health',
    };
    const ids: Record<string, string> = {};
    for (const [name, healthUrl] of Object.entries(registrations)) {
      ids[name] = await register(tk, { name, healthUrl });
      await register(open, { name, healthUrl });
    }
    // A detected endpoint on another, internal host is judged by its own address.
    const { detectEndpointsCommand } = await import('../../../core/plugin-api.js');
    await tk.kernel.registry.apply(ids.public!, detectEndpointsCommand([{ id: 'prometheus', url: 'http://93.184.216.34:9100/metrics' }]));
    await tk.kernel.registry.apply(ids.allowed!, detectEndpointsCommand([{ id: 'prometheus', url: 'http://10.2.0.1:9100/metrics' }]));
    const listed = async (kernel: TestKernel) => (await sd(kernel)).map((group) => group.labels.__meta_vigil_application).sort();
    assert.equal(await listed(tk), ['public']);
    assert.equal((await sd(tk))[0]!.targets, ['93.184.216.34:9100']);
    assert.equal(await listed(open), Object.keys(registrations).sort(), 'without ssrf-protection every target is listed');
    await tk.kernel.registry.apply(ids.allowed!, detectEndpointsCommand([{ id: 'prometheus', url: 'http://10.1.0.1:9100/metrics' }]));
    assert.equal(await listed(tk), ['allowed', 'public']);
  } finally {
    await tk.stop();
    await open.stop();
  }
});

test('?application= and ?status= select; a bad query is a 400 JSON error', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  try {
    const a = await register(tk, { name: 'a', healthUrl: 'http://10.0.0.1/health' });
    const b = await register(tk, { name: 'b', healthUrl: 'http://10.0.0.2/health' });
    await register(tk, { name: 'c', healthUrl: 'http://10.0.0.3/health' });
    const { changeStatusCommand } = await import('../../../core/plugin-api.js');
    const { statusInfo } = await import('../../../core/domain/index.js');
    await tk.kernel.registry.apply(b, changeStatusCommand(statusInfo('DOWN')));
    const ids = async (query: string) => (await sd(tk, query)).map((group) => group.labels.__meta_vigil_instance_id).sort();
    assert.equal(await ids('?application=a'), [a]);
    assert.equal(await ids('?application=a&application=b'), [a, b].sort());
    assert.equal(await ids('?status=down'), [b]);
    assert.equal(await ids('?application=a&status=DOWN'), []);
    for (const query of ['?app=a', '?application=', '?status=%20']) {
      const reply = await call('GET', `${tk.url}/prometheus/sd${query}`);
      assert.is(reply.status, 400, query);
      assert.equal(Object.keys(reply.json as object).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
    }
  } finally {
    await tk.stop();
  }
});

test('target policy: one look-up per host and period, shared by concurrent requests; a failing check refuses', async () => {
  const asked: string[] = [];
  let release: (() => void) | undefined;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  const outbound = {
    async refusalOf(url: string | URL) {
      asked.push(String(url));
      await gate;
      if (String(url).includes('broken')) throw new Error('resolver exploded');
      return String(url).includes('internal') ? new Error('not permitted') : undefined;
    },
  } as unknown as Outbound;
  let now = 1_000;
  const policy = new TargetPolicy(outbound, silentLog, () => now);
  const keys = ['http://public.example', 'http://internal.example', 'http://public.example', 'https://broken.example'];
  const first = policy.permitted(keys);
  const second = policy.permitted(keys);
  release!();
  for (const permitted of await Promise.all([first, second])) {
    assert.equal(keys.map(permitted), [true, false, true, false]);
    assert.is(permitted('http://never-asked.example'), false);
  }
  assert.equal(asked.sort(), ['http://internal.example/', 'http://public.example/', 'https://broken.example/']);
  await policy.permitted(keys);
  assert.is(asked.length, 3, 'kept for the period');
  now += 30_000;
  assert.equal(['http://public.example'].map(await policy.permitted(['http://public.example'])), [true]);
  assert.is(asked.length, 4, 'asked again after the period');
});

test('label helpers: names sanitised, userinfo removed', () => {
  assert.is(labelName('__meta_vigil_metadata_', 'management.context-path'), '__meta_vigil_metadata_management_context_path');
  assert.is(labelName('__meta_vigil_tag_', 'zone/ü'), '__meta_vigil_tag_zone__');
  assert.is(withoutUserinfo('plain value'), 'plain value');
  assert.is(withoutUserinfo('mail@example.com'), 'mail@example.com');
  assert.is(withoutUserinfo('http://u:p@h/x'), 'http://h/x');
  assert.is(withoutUserinfo('http:\\\\u:p@h/x'), 'http://h/x');
  assert.is(withoutUserinfo('not a url u:p@h'), 'not a url u:p@h');
});

test.run();
