import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { simpleMatch } from '../../../../core/kits/discovery/index.js';
import { wantsInstance, wantsService } from '../../../../core/kits/discovery/filters.js';

// InstanceDiscoveryListenerTest's filter cases, on the functions the core applies to every run.
const services = (services: string[], ignored: string[] = []) => (name: string) => wantsService({ services, 'ignored-services': ignored }, name);

test('simple patterns: * anywhere, case-insensitive, everything else literal', () => {
  assert.ok(simpleMatch('*', 'anything'));
  assert.ok(simpleMatch('ser*', 'Service'));
  assert.ok(simpleMatch('*-1', 'rabbit-1'));
  assert.ok(simpleMatch('a*b*c', 'aXXbYc'));
  assert.not.ok(simpleMatch('a.c', 'abc'), 'a dot is a dot');
  assert.not.ok(simpleMatch('ser', 'service'));
  assert.ok(simpleMatch('', ''));
});

test('services and ignored-services (should_register_instances_when_serviceId_matches_wanted_pattern_and_ignored_pattern)', () => {
  const wants = services(['ser*'], ['service-*']);
  assert.equal(['service-1', 'service', 'rabbit-1', 'rabbit-2'].filter(wants), ['service']);
  assert.equal(['service', 'notService2'].filter(services(['notService2'])), ['notService2']);
  assert.equal(['service', 'rabbit-1', 'rabbit-2'].filter(services(['*'], ['rabbit-*'])), ['service']);
  assert.equal(['Service'].filter(services(['*'], ['service'])), [], 'ignored case-insensitively');
});

test('instances-metadata and ignored-instances-metadata', () => {
  const none = { 'instances-metadata': {}, 'ignored-instances-metadata': {} };
  assert.ok(wantsInstance(none, {}));
  const wanted = { 'instances-metadata': { monitoring: 'true' }, 'ignored-instances-metadata': { management: 'true' } };
  assert.not.ok(wantsInstance(wanted, { monitoring: 'true', management: 'true' }), 'ignored wins');
  assert.ok(wantsInstance(wanted, { monitoring: 'true', management: 'false' }));
  assert.not.ok(wantsInstance(wanted, { monitoring: 'false' }), 'no wanted pair');
  assert.not.ok(wantsInstance(wanted, {}), 'no metadata at all');
  assert.not.ok(wantsInstance({ 'instances-metadata': {}, 'ignored-instances-metadata': { monitoring: 'false' } }, { monitoring: 'false' }));
  assert.ok(wantsInstance({ 'instances-metadata': {}, 'ignored-instances-metadata': { monitoring: 'false' } }, { monitoring: 'true' }));
  assert.not.ok(wantsInstance({ 'instances-metadata': { toString: 'x' }, 'ignored-instances-metadata': {} }, { constructor: 'x' }), 'own keys only');
});

test.run();
