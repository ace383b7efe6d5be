import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { toApplication } from '../../../../core/store/application.js';
import { emptyInstance } from '../../../../core/store/instance.js';
import { createJsonViews } from '../../../../core/kits/views/index.js';
import type { Instance, InstanceEvent } from '../../../../core/store/types.js';
import { DEFAULT_SANITIZE } from '../../../../config/defaults.js';

test('json views sanitise metadata everywhere and add the health endpoint', () => {
  const views = createJsonViews(DEFAULT_SANITIZE);
  const registration = {
    name: 'shop', healthUrl: 'http://h/health', managementUrl: 'http://h', serviceUrl: null, source: 'http-api',
    metadata: { 'user.password': 'secret1', PASSWORD: 'secret2', 'api-key': 'k', user: 'ops', 'vcap_services': 'v', credentialsFile: 'c', 'my.token': 't' },
  };
  const instance: Instance = { ...emptyInstance('i1'), version: 0, registered: true, registration, endpoints: [{ id: 'info', url: 'http://h/info' }] };
  const view = views.instance(instance) as { registration: { metadata: Record<string, string> }; endpoints: unknown };
  assert.equal(view.registration.metadata, {
    'user.password': '******', PASSWORD: '******', 'api-key': '******', user: 'ops', vcap_services: '******', credentialsFile: '******', 'my.token': '******',
  });
  assert.equal(view.endpoints, [{ id: 'health', url: 'http://h/health' }, { id: 'info', url: 'http://h/info' }]);
  assert.is(registration.metadata['user.password'], 'secret1', 'the stored value is untouched');
  const event = { instance: 'i1', version: 0, seq: 1, timestamp: 't', type: 'REGISTERED', registration } as InstanceEvent;
  const eventView = views.event(event) as { registration: { metadata: Record<string, string> }; seq?: number };
  assert.is(eventView.registration.metadata.PASSWORD, '******');
  assert.is(eventView.seq, undefined, 'seq is not on the wire');
  const app = views.application(toApplication('shop', [instance])) as { instances: { registration: { metadata: Record<string, string> } }[] };
  assert.is(app.instances[0]!.registration.metadata['api-key'], '******');
  for (const draft of [
    { type: 'STATUS_CHANGED', statusInfo: { status: 'UP', details: {} } },
    { type: 'ENDPOINTS_DETECTED', endpoints: [] },
    { type: 'INFO_CHANGED', info: { a: 1 } },
    { type: 'DEREGISTERED' },
  ]) {
    const shown = views.event({ instance: 'i1', version: 1, seq: 2, timestamp: 't', ...draft } as InstanceEvent);
    assert.equal(Object.keys(shown).sort(), ['instance', 'timestamp', 'type', 'version', ...Object.keys(draft).filter((k) => k !== 'type')].sort());
  }
});

test('a registration with nothing to mask is its own view (the cache copies none of its strings); one with a URL password or a sensitive key is a masked copy', () => {
  const views = createJsonViews(DEFAULT_SANITIZE);
  const plain = { name: 'shop', managementUrl: 'http://h:8080/actuator', healthUrl: 'http://h:8080/actuator/health', serviceUrl: 'http://h:8080/', source: 'http-api', metadata: { team: 'blue' } };
  assert.is(views.registration(plain), plain);
  const secretKey = { ...plain, metadata: { team: 'blue', password: 'pw' } };
  assert.equal(views.registration(secretKey), { ...plain, metadata: { team: 'blue', password: '******' } });
  assert.is(views.registration(secretKey), views.registration(secretKey), 'masked once, then served from the cache');
  const withPassword = { ...plain, healthUrl: 'http://u:pw@h:8080/actuator/health' };
  assert.equal(views.registration(withPassword), { ...plain, healthUrl: 'http://u:******@h:8080/actuator/health' });
  assert.is(secretKey.metadata.password, 'pw', 'the stored values are untouched');
});

test.run();
