import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../../core/testing.js';
import { labelName, withoutUserinfo } from '../../../plugins/prometheus-sd/target-group.js';
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
    await tk.kernel.instances.apply(id, detectEndpointsCommand([{ id: 'prometheus', url: 'http://[::1]:9100/custom/metrics?format=text&x-y=1' }]));
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
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'], config: { 'metadata-keys-to-sanitize': ['.*password$', '.*token$', 'internal\\..*'] } });
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

test('?application= and ?status= select; a bad query is a 400 JSON error', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'prometheus-sd'] });
  try {
    const a = await register(tk, { name: 'a', healthUrl: 'http://10.0.0.1/health' });
    const b = await register(tk, { name: 'b', healthUrl: 'http://10.0.0.2/health' });
    await register(tk, { name: 'c', healthUrl: 'http://10.0.0.3/health' });
    const { changeStatusCommand, statusInfo } = await import('../../../core/plugin-api.js');
    await tk.kernel.instances.apply(b, changeStatusCommand(statusInfo('DOWN')));
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
