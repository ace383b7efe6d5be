import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isUrlOf, packRegistration, sameUrls } from '../../core/store/packed-registration.js';
import type { Registration } from '../../core/store/types.js';

const usual: Registration = {
  name: 'shop', managementUrl: 'http://10.0.0.1:8080/actuator', healthUrl: 'http://10.0.0.1:8080/actuator/health',
  serviceUrl: 'http://10.0.0.1:8080/', source: 'http-api', metadata: { team: 'blue' },
};

test('a registration whose URLs derive from its management URL packs, and reads and serialises as the plain one', () => {
  const packed = packRegistration(usual)!;
  assert.ok(packed);
  for (const key of ['name', 'managementUrl', 'healthUrl', 'serviceUrl', 'source', 'metadata'] as const) assert.equal(packed[key], usual[key], key);
  assert.is(JSON.stringify(packed), JSON.stringify(usual), 'same fields, same order');
  assert.is(packRegistration(packed), packed, 'packed once');
  const liveness = { ...usual, healthUrl: `${usual.managementUrl}/health/liveness`, serviceUrl: usual.managementUrl };
  assert.is(JSON.stringify(packRegistration(liveness)), JSON.stringify(liveness));
});

test('a registration whose URLs do not derive from its management URL is left plain', () => {
  assert.is(packRegistration({ ...usual, managementUrl: null }), undefined, 'no management URL');
  assert.is(packRegistration({ ...usual, serviceUrl: null }), undefined, 'no service URL');
  assert.is(packRegistration({ ...usual, serviceUrl: 'http://10.0.0.2:8080/' }), undefined, 'service elsewhere');
  assert.is(packRegistration({ ...usual, healthUrl: 'http://10.0.0.1:9090/health' }), undefined, 'health elsewhere');
  assert.is(packRegistration({ ...usual, healthUrl: `${usual.managementUrl}/${'x'.repeat(100)}` }), undefined, 'a health suffix too long to share');
});

test('a heartbeat compares its URLs with a packed registration as with the plain one', () => {
  const packed = packRegistration(usual)!;
  for (const held of [usual, packed]) {
    for (const url of [usual.healthUrl, usual.managementUrl!, usual.serviceUrl!]) assert.ok(isUrlOf(held, url), url);
    for (const url of ['http://10.0.0.1:8080/actuator/healt', 'http://10.0.0.1:8080/actuator/health/', 'http://10.0.0.1:8080', 'http://10.0.0.1:8080/act', 'http://10.0.0.2:8080/']) {
      assert.not.ok(isUrlOf(held, url), url);
    }
    for (const other of [usual, packed]) {
      assert.ok(sameUrls(held, other));
      assert.ok(sameUrls(other, held));
    }
    for (const changed of [
      { ...usual, healthUrl: `${usual.managementUrl}/health/liveness` },
      { ...usual, serviceUrl: 'http://10.0.0.1:8080' },
      { ...usual, serviceUrl: null },
      { ...usual, managementUrl: 'http://10.0.0.1:8080/manage' },
    ]) {
      assert.not.ok(sameUrls(held, changed), JSON.stringify(changed));
      assert.not.ok(sameUrls(changed, held), JSON.stringify(changed));
    }
  }
});

test.run();
