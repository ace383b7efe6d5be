import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ConversionError, convertService, type DiscoveredService } from '../../../../core/kits/discovery/index.js';

// SBA's converter tests (spring-boot-admin-server-cloud, DefaultServiceInstanceConverterTest,
// KubernetesServiceInstanceConverterTest, EurekaServiceInstanceConverterTest), one test each.
const defaults = { 'management-context-path': '/actuator', 'health-endpoint-path': 'health' };
const custom = { 'management-context-path': 'mgmt', 'health-endpoint-path': 'ping' };
const urls = (entry: DiscoveredService, config = defaults) => {
  const registration = convertService(entry, config);
  return [registration.name, registration.serviceUrl, registration.managementUrl, registration.healthUrl];
};

test('should_convert_with_defaults', () => {
  assert.equal(urls({ name: 'test', uri: 'http://localhost:80' }),
    ['test', 'http://localhost:80', 'http://localhost:80/actuator', 'http://localhost:80/actuator/health']);
});

test('should_convert_with_custom_defaults', () => {
  assert.equal(urls({ name: 'test', uri: 'http://localhost:80' }, custom),
    ['test', 'http://localhost:80', 'http://localhost:80/mgmt', 'http://localhost:80/mgmt/ping']);
});

const dotted = { 'health.path': 'ping', 'management.scheme': 'https', 'management.address': '127.0.0.1', 'management.port': '1234', 'management.context-path': 'mgmt' };
const dashed = { 'health-path': 'ping', 'management-scheme': 'https', 'management-address': '127.0.0.1', 'management-port': '1234', 'management-context-path': 'mgmt' };

test('should_convert_with_metadata (and the metadata is kept as given)', () => {
  const registration = convertService({ name: 'test', uri: 'http://localhost:80', metadata: dotted }, defaults);
  assert.equal([registration.serviceUrl, registration.managementUrl, registration.healthUrl],
    ['http://localhost:80', 'https://127.0.0.1:1234/mgmt', 'https://127.0.0.1:1234/mgmt/ping']);
  assert.equal(registration.metadata, dotted);
  assert.is(registration.source, 'discovery');
});

test('should_convert_with_metadata_without_dots (Consul forbids dots in metadata keys)', () => {
  const registration = convertService({ name: 'test', uri: 'http://localhost:80', metadata: dashed }, defaults);
  assert.equal([registration.managementUrl, registration.healthUrl], ['https://127.0.0.1:1234/mgmt', 'https://127.0.0.1:1234/mgmt/ping']);
  assert.equal(registration.metadata, dashed);
});

test('should_convert_with_metadata_having_null_value: the default context path stays', () => {
  const metadata = { 'health.path': 'ping', 'management.scheme': 'https', 'management.address': '127.0.0.1', 'management.port': '1234' };
  assert.is(convertService({ name: 'test', uri: 'http://localhost:80', metadata }, defaults).healthUrl, 'https://127.0.0.1:1234/actuator/ping');
});

test('should_convert_service_with_uri: the service path is kept', () => {
  assert.equal(urls({ name: 'test', uri: 'http://localhost/test' }),
    ['test', 'http://localhost/test', 'http://localhost/test/actuator', 'http://localhost/test/actuator/health']);
  assert.equal(convertService({ name: 'test', uri: 'http://localhost/test' }, defaults).metadata, {});
});

test('should_convert_service_with_uri_and_custom_defaults', () => {
  assert.equal(urls({ name: 'test', uri: 'http://localhost/test' }, custom),
    ['test', 'http://localhost/test', 'http://localhost/test/mgmt', 'http://localhost/test/mgmt/ping']);
});

test('should_convert_service_with_uri_and_metadata_different_port: the service path is dropped', () => {
  const metadata = { 'health.path': 'ping', 'management.context-path': 'mgmt', 'management.port': '1234', 'management.address': '127.0.0.1' };
  assert.equal(urls({ name: 'test', uri: 'http://localhost/test', metadata }),
    ['test', 'http://localhost/test', 'http://127.0.0.1:1234/mgmt', 'http://127.0.0.1:1234/mgmt/ping']);
});

test('should_convert_service_with_uri_and_metadata', () => {
  const metadata = { 'health.path': 'ping', 'management.context-path': 'mgmt' };
  assert.equal(urls({ name: 'test', uri: 'http://localhost/test', metadata }),
    ['test', 'http://localhost/test', 'http://localhost/test/mgmt', 'http://localhost/test/mgmt/ping']);
});

test('Kubernetes convert_using_port_mgmt / fallback_for_port_mgmt: the management port', () => {
  for (const entry of [{ name: 'test', uri: 'http://localhost:80', managementPort: 9080 }, { name: 'test', uri: 'http://localhost:80', metadata: { 'port.management': '9080' } }]) {
    const registration = convertService(entry, defaults);
    assert.equal([registration.managementUrl, registration.healthUrl], ['http://localhost:9080/actuator', 'http://localhost:9080/actuator/health']);
  }
  // The named port beats the metadata key, as SBA's Kubernetes converter asks its key first.
  assert.is(convertService({ name: 'test', uri: 'http://localhost:80', managementPort: 9080, metadata: { 'management.port': '7000' } }, defaults).managementUrl,
    'http://localhost:9080/actuator');
});

test('Eureka convert_secure / convert_missing_mgmt_path / convert_secure_healthUrl', () => {
  const secure = convertService({ name: 'test', uri: 'http://localhost:80', healthUrl: 'http://localhost:80/mgmt/ping', metadata: { 'management.context-path': '/mgmt' } }, defaults);
  assert.equal([secure.serviceUrl, secure.managementUrl, secure.healthUrl], ['http://localhost:80', 'http://localhost:80/mgmt', 'http://localhost:80/mgmt/ping']);
  assert.is(convertService({ name: 'test', uri: 'http://localhost:80', healthUrl: 'http://localhost:80/mgmt/ping' }, defaults).managementUrl, 'http://localhost:80/actuator');
  assert.is(convertService({ name: 'test', uri: 'http://localhost:80', healthUrl: 'https://localhost:80/health' }, defaults).healthUrl, 'https://localhost:80/health');
  // A blank health URL falls back to the derived one (Spring's hasText).
  assert.is(convertService({ name: 'test', uri: 'http://localhost:80', healthUrl: '' }, defaults).healthUrl, 'http://localhost:80/actuator/health');
});

test('slashes collapse as UriComponentsBuilder does; blank metadata falls back; IPv6 hosts', () => {
  assert.is(convertService({ name: 't', uri: 'http://h:1/app/' }, { 'management-context-path': '/actuator/', 'health-endpoint-path': '/health' }).healthUrl, 'http://h:1/app/actuator/health');
  assert.is(convertService({ name: 't', uri: 'http://h:1', metadata: { 'management.port': ' ' } }, defaults).managementUrl, 'http://h:1/actuator');
  assert.is(convertService({ name: 't', uri: 'http://[::1]:8080' }, defaults).healthUrl, 'http://[::1]:8080/actuator/health');
  assert.is(convertService({ name: 't', uri: 'http://[::1]:8080', metadata: { 'management.address': '::2' } }, defaults).managementUrl, 'http://[::2]:8080/actuator');
});

test('what cannot be converted throws ConversionError naming the problem', () => {
  for (const [entry, words] of [
    [{ name: 't', uri: 'localhost:80' }, 'scheme://host'],
    [{ name: 't', uri: 'http://h:80', metadata: { 'management.port': 'eighty' } }, 'management port "eighty"'],
    [{ name: 't', uri: 'grpc://h:80' }, 'absolute http(s) URL'],
    [{ name: '', uri: 'http://h:80' }, "'name'"],
  ] as const) {
    try {
      convertService(entry as DiscoveredService, defaults);
      assert.unreachable(JSON.stringify(entry));
    } catch (error) {
      assert.instance(error, ConversionError);
      assert.ok((error as Error).message.includes(words), (error as Error).message);
    }
  }
});

test.run();
