import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { RunLog, refresh, registered, registrationAt } from '../../support/discovery.js';
import { DnsResponder } from './dns-responder.js';

const SOURCE = 'discovery-dns';
const SRV = '_https._tcp.orders.vigil.test';

async function withDns(section: Record<string, unknown>, body: (kernel: TestKernel, runs: RunLog, dns: DnsResponder) => Promise<void>, zone: (dns: DnsResponder) => void): Promise<void> {
  const dns = await DnsResponder.start();
  zone(dns);
  const runs = new RunLog();
  let kernel: TestKernel | undefined;
  try {
    kernel = await startTestKernel({ plugins: [runs.plugin, 'rest-api', SOURCE], config: { [SOURCE]: { servers: [dns.server], ...section } } });
    await body(kernel, runs, dns);
  } finally {
    await kernel?.stop();
    await dns.close();
  }
}

const ordersZone = (dns: DnsResponder) => dns.set(SRV, [
  { type: 'SRV', data: { target: 'node-1.vigil.test', port: 8443, priority: 10, weight: 5 } },
  { type: 'SRV', data: { target: 'node-2.vigil.test', port: 8443, priority: 20, weight: 5 } },
  { type: 'SRV', data: { target: '.', port: 0 } },
  { type: 'TXT', data: ['management.context-path=/manage', 'zone=from-dns', 'canary', '=nokey'] },
]);

test('SRV targets with the record\'s scheme; TXT pairs and configured metadata (which wins) as metadata; "." skipped', () =>
  withDns({ records: [{ name: 'orders', srv: SRV, scheme: 'https', metadata: { zone: 'eu-1', team: 'shop' } }] }, async (kernel, runs, dns) => {
    assert.is((await runs.applied(SOURCE)).listed, 2);
    assert.equal(registrationAt(kernel, 'https://node-1.vigil.test:8443/manage/health'), {
      name: 'orders',
      healthUrl: 'https://node-1.vigil.test:8443/manage/health',
      managementUrl: 'https://node-1.vigil.test:8443/manage',
      serviceUrl: 'https://node-1.vigil.test:8443',
      source: 'discovery',
      metadata: { 'management.context-path': '/manage', zone: 'eu-1', canary: 'true', team: 'shop' },
    });
    assert.ok(registrationAt(kernel, 'https://node-2.vigil.test:8443/manage/health'));
    assert.ok(dns.queries.includes(`SRV ${SRV}`) && dns.queries.includes(`TXT ${SRV}`), dns.queries.join(', '));
  }, ordersZone));

test('NXDOMAIN and NODATA list nothing (the removal guard still asks twice); SERVFAIL, REFUSED and silence fail the run', () =>
  withDns({ records: [{ name: 'orders', srv: SRV }], timeout: '1s' }, async (kernel, runs, dns) => {
    await runs.applied(SOURCE);
    assert.is(registered(kernel).length, 2);
    for (const mode of ['SERVFAIL', 'REFUSED', 'silent'] as const) {
      dns.mode = mode;
      const mark = runs.mark();
      await refresh(kernel);
      const run = await runs.failed(SOURCE, mark);
      assert.match(run.error!, { SERVFAIL: /ESERVFAIL$/, REFUSED: /EREFUSED$/, silent: /ETIMEOUT$|did not answer/ }[mode]);
      assert.is(registered(kernel).length, 2, mode);
    }
    dns.mode = 'zone';
    // NODATA: the name exists, without SRV records.
    dns.set(SRV, [{ type: 'A', data: '10.0.0.1' }]);
    let mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.withheld, 2);
    // NXDOMAIN: the name is gone.
    dns.zone.clear();
    mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.applied(SOURCE, mark)).diff?.removed, 2);
    assert.equal(registered(kernel), []);
  }, ordersZone));

test('resolve-targets: the target\'s address from the same servers (A, else AAAA); a target without one fails the run', () =>
  withDns({ records: [{ name: 'orders', srv: SRV }], 'resolve-targets': true }, async (kernel, runs, dns) => {
    await runs.applied(SOURCE);
    assert.equal(registered(kernel), ['orders http://10.3.0.1:8443/actuator/health', 'orders http://[fd00::2]:8443/actuator/health']);
    dns.set('node-2.vigil.test', []);
    const mark = runs.mark();
    await refresh(kernel);
    assert.is((await runs.failed(SOURCE, mark)).error, 'A/AAAA node-2.vigil.test: the SRV target has no address');
  }, (dns) => {
    dns.set(SRV, [{ type: 'SRV', data: { target: 'node-1.vigil.test', port: 8443 } }, { type: 'SRV', data: { target: 'node-2.vigil.test', port: 8443 } }]);
    dns.set('node-1.vigil.test', [{ type: 'A', data: '10.3.0.1' }]);
    dns.set('node-2.vigil.test', [{ type: 'AAAA', data: 'fd00::2' }]);
  }));

test('config: records are required and checked; servers must be addresses', async () => {
  assert.equal(await checkPlugin(SOURCE, { [SOURCE]: { records: [{ name: 'a', srv: '_http._tcp.a' }], servers: ['10.0.0.2', '10.0.0.2:5353', '[::1]:53', '::1'] } }), []);
  const problems = await checkPlugin(SOURCE, { [SOURCE]: { records: [{ name: 'a', scheme: 'ftp', port: 1 }], servers: ['dns.example:53', '10.0.0.1:99999'] } });
  for (const words of ['records[0].srv: is required', 'records[0].scheme: must be http or https', 'records[0]: unknown key(s): port', 'servers[0]: must be an IP address', 'servers[1]: must be an IP address']) {
    assert.ok(problems.some((problem) => problem.includes(words)), `${words} in ${problems.join('\n')}`);
  }
  assert.ok((await checkPlugin(SOURCE, {})).some((problem) => problem.includes('discovery-dns.records: is required')));
});

test.run();
