import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { RunLog, refresh, registered, registrationAt } from '../../support/discovery.js';
import { FakeEureka } from './fake-eureka.js';

const SOURCE = 'discovery-eureka';

async function withEureka(setup: (eureka: FakeEureka) => void, section: (eureka: FakeEureka) => Record<string, unknown>, body: (kernel: TestKernel, runs: RunLog, eureka: FakeEureka) => Promise<void>, basePath?: string): Promise<void> {
  const eureka = await FakeEureka.start(basePath);
  setup(eureka);
  const runs = new RunLog();
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: section(eureka) } });
    await body(kernel, runs, eureka);
  } finally {
    await kernel?.stop();
    await eureka.close();
  }
}

test('the legacy shape: one application and one instance as objects, the port a string, @class metadata dropped', () =>
  withEureka((eureka) => {
    eureka.shape = 'legacy';
    eureka.instances = [{ name: 'orders', host: '10.4.0.1', port: 7001 }];
  }, (eureka) => ({ url: eureka.url }), async (kernel, runs, eureka) => {
    await runs.applied(SOURCE);
    assert.ok(!Array.isArray((eureka.json() as { applications: { application: unknown } }).applications.application), 'the fixture really is the single-object form');
    assert.equal(registrationAt(kernel, 'http://10.4.0.1:7001/actuator/health'), {
      name: 'ORDERS', healthUrl: 'http://10.4.0.1:7001/actuator/health', managementUrl: 'http://10.4.0.1:7001/actuator', serviceUrl: 'http://10.4.0.1:7001', source: 'discovery', metadata: {},
    });
  }));

test('the modern shape; Accept: application/json is sent (without it Eureka answers XML); non-UP instances are kept', () =>
  withEureka((eureka) => {
    eureka.instances = [
      { name: 'orders', host: '10.4.0.1', port: 8080, metadata: { 'management.context-path': '/manage', zone: 'a' } },
      { name: 'orders', host: '10.4.0.2', port: 8080, status: 'DOWN' },
      { name: 'billing', host: '10.4.0.3', port: 9000, status: 'OUT_OF_SERVICE' },
    ];
  }, (eureka) => ({ url: eureka.url }), async (kernel, runs, eureka) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), [
      'BILLING http://10.4.0.3:9000/actuator/health', 'ORDERS http://10.4.0.1:8080/actuator/health', 'ORDERS http://10.4.0.2:8080/actuator/health',
    ]);
    // The health URL is Eureka's; the management URL follows SBA's metadata rules.
    assert.equal(registrationAt(kernel, 'http://10.4.0.1:8080/actuator/health'), {
      name: 'ORDERS', healthUrl: 'http://10.4.0.1:8080/actuator/health', managementUrl: 'http://10.4.0.1:8080/manage', serviceUrl: 'http://10.4.0.1:8080',
      source: 'discovery', metadata: { 'management.context-path': '/manage', zone: 'a' },
    });
    assert.is(eureka.requests[0]?.headers.accept, 'application/json');
    const withoutAccept = await fetch(eureka.url + '/apps', { headers: { accept: '' } });
    assert.is(withoutAccept.headers.get('content-type'), 'application/xml');
    assert.match(await withoutAccept.text(), /^<applications>/);
  }));

test('a secure instance: https on the secure port, health from secureHealthCheckUrl; prefer-ip-address', () =>
  withEureka((eureka) => {
    eureka.instances = [{ name: 'pay', host: '10.4.0.5', hostName: 'pay-1.internal', port: 8080, securePort: 8443, secureHealthCheckUrl: 'https://pay-1.internal:8443/health' }];
  }, (eureka) => ({ url: eureka.url }), async (kernel, runs) => {
    await runs.applied(SOURCE);
    assert.equal(registrationAt(kernel, 'https://pay-1.internal:8443/health'), {
      name: 'PAY', healthUrl: 'https://pay-1.internal:8443/health', managementUrl: 'https://pay-1.internal:8443/actuator', serviceUrl: 'https://pay-1.internal:8443', source: 'discovery', metadata: {},
    });
  }));

test('prefer-ip-address: the instance\'s ipAddr instead of its hostName', () =>
  withEureka((eureka) => {
    eureka.instances = [{ name: 'pay', host: '10.4.0.5', hostName: 'pay-1.internal', port: 8080 }];
  }, (eureka) => ({ url: eureka.url, 'prefer-ip-address': true }), async (kernel, runs) => {
    await runs.applied(SOURCE);
    // The health URL is still the one Eureka lists; the service URL uses the address.
    assert.is(registrationAt(kernel, 'http://pay-1.internal:8080/actuator/health')?.serviceUrl, 'http://10.4.0.5:8080');
  }));

test('a configurable base path (Netflix\'s /eureka/v2), Basic credentials from the URL, never shown', () =>
  withEureka((eureka) => {
    eureka.instances = [{ name: 'orders', host: '10.4.0.1', port: 8080 }];
  }, (eureka) => ({ url: eureka.url.replace('http://', 'http://reader:s3cr%40t@') }), async (kernel, runs, eureka) => {
    await runs.applied(SOURCE);
    assert.is(eureka.requests[0]?.url, '/eureka/v2/apps');
    assert.is(eureka.requests[0]?.headers.authorization, `Basic ${Buffer.from('reader:s3cr@t').toString('base64')}`);
    eureka.failing = true;
    const mark = runs.mark();
    await refresh(kernel);
    const run = await runs.failed(SOURCE, mark);
    assert.is(run.error, `GET http://127.0.0.1:${eureka.port}/eureka/v2/apps: HTTP 500: {"error":"Internal Server Error"}`);
    assert.not.ok(kernel.logs().some((line) => line.includes('s3cr')), 'the password is in no log line');
  }, '/eureka/v2'));

test('an answer that is not Eureka\'s fails the run, naming what is wrong', () =>
  withEureka(() => undefined, (eureka) => ({ url: eureka.url.replace('/eureka', '') }), async (kernel, runs, eureka) => {
    assert.is((await runs.failed(SOURCE)).error, `GET http://127.0.0.1:${eureka.port}/apps: HTTP 404`);
    eureka.body = { status: 'ok' };
    const mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.failed(SOURCE, mark)).error, 'the answer has no "applications" object: is the URL Eureka\'s (ending in /eureka)?');
  }));

test('config: url is required and must be http(s)', async () => {
  assert.ok((await checkPlugin(SOURCE, {})).some((problem) => problem.includes('discovery-eureka.url: is required')));
  assert.ok((await checkPlugin(SOURCE, { [SOURCE]: { url: 'eureka:8761' } })).some((problem) => problem.includes('must be an http(s) URL')));
});

test.run();
