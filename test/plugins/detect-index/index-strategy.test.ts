import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { Endpoint } from '../../../core/domain/index.js';
import type { InstanceHttpClient, InstanceResponse } from '../../../core/kits/services/index.js';
import { ACTUATOR_ACCEPT as INDEX_ACCEPT } from '../../../core/kits/runtime/index.js';
import { indexStrategy } from '../../../plugins/detect-index/index-strategy.js';
import { ACTUATOR_V3, FakeActuator } from '../../support/fake-actuator.js';
import { closedPort, fetchClient, instanceWith, recordingLog, type RecordedCall } from './fixtures.js';

const byId = (endpoints: readonly Endpoint[]) => [...endpoints].sort((a, b) => a.id.localeCompare(b.id));

function strategyOver(client: InstanceHttpClient) {
  const { log, lines } = recordingLog();
  return { strategy: indexStrategy({ http: () => client, log }), lines };
}

/** Detects against `fake` with the test client. */
async function detectOn(fake: FakeActuator, extra: Parameters<typeof instanceWith>[0] = {}) {
  const calls: RecordedCall[] = [];
  const { strategy, lines } = strategyOver(fetchClient(calls));
  const instance = instanceWith({ managementUrl: fake.managementUrl, healthUrl: fake.healthUrl, serviceUrl: `${fake.origin}/`, ...extra });
  const endpoints = await strategy.detect(instance, new AbortController().signal);
  return { endpoints, calls, lines };
}

test('takes every index link but self and templated ones, asking for the actuator types', async () => {
  const fake = await FakeActuator.start({ links: ['health', 'info', 'env', 'loggers'] });
  try {
    const { endpoints, calls } = await detectOn(fake);
    assert.equal(byId(endpoints), byId(['health', 'info', 'env', 'loggers'].map((id) => ({ id, url: fake.endpointUrl(id) }))));
    const queries = fake.requestsTo('', 'GET');
    assert.is(queries.length, 1);
    assert.is(queries[0]!.headers.accept, INDEX_ACCEPT);
    assert.ok(INDEX_ACCEPT.startsWith(ACTUATOR_V3));
    assert.is(calls[0]!.options.endpointId, 'actuator-index', 'tagged for the actuator-index timeout and retries');
  } finally {
    await fake.close();
  }
});

test('accepts the v2 type with parameters; hrefs are kept exactly, relative ones too', async () => {
  const fake = await FakeActuator.start({ links: null });
  fake.on('GET', '', {
    contentType: 'application/vnd.spring-boot.actuator.v2+json;charset=UTF-8',
    json: { _links: { self: { href: fake.managementUrl }, health: { href: 'health' }, info: { href: 'http://elsewhere/info?x=1' }, odd: { templated: false } } },
  });
  try {
    const { endpoints } = await detectOn(fake);
    assert.equal(endpoints, [{ id: 'health', url: 'health' }, { id: 'info', url: 'http://elsewhere/info?x=1' }]);
  } finally {
    await fake.close();
  }
});

const unusable: [string, Parameters<FakeActuator['on']>[2]][] = [
  ['a 404', { status: 404, json: { error: 'Not Found' }, contentType: ACTUATOR_V3 }],
  ['a 500 with links', { status: 500, json: { _links: { info: { href: 'x' } } }, contentType: ACTUATOR_V3 }],
  ['text/plain', { body: JSON.stringify({ _links: { info: { href: 'x' } } }), contentType: 'text/plain' }],
  ['plain application/json', { json: { _links: { info: { href: 'x' } } }, contentType: 'application/json' }],
  ['no Content-Type', { body: JSON.stringify({ _links: { info: { href: 'x' } } }) }],
  ['bad JSON', { body: '{"_links": {', contentType: ACTUATOR_V3 }],
  ['JSON without _links', { json: ['info'], contentType: ACTUATOR_V3 }],
  ['only self and templated links', { json: { _links: { self: { href: 'x' }, m: { href: 'y/{z}', templated: true } } }, contentType: ACTUATOR_V3 }],
];
for (const [what, spec] of unusable) {
  test(`an index answering ${what} yields nothing`, async () => {
    const fake = await FakeActuator.start({ links: null });
    fake.on('GET', '', spec);
    try {
      const { endpoints, lines } = await detectOn(fake);
      assert.equal(endpoints, []);
      assert.is(fake.requestsTo('', 'GET').length, 1);
      assert.ok(lines.some((line) => line.startsWith('debug actuator index')), 'the hand-over is logged at debug');
    } finally {
      await fake.close();
    }
  });
}

test('a refused connection yields nothing', async () => {
  const port = await closedPort();
  const { strategy, lines } = strategyOver(fetchClient());
  const instance = instanceWith({ managementUrl: `http://127.0.0.1:${port}/actuator` });
  assert.equal(await strategy.detect(instance, new AbortController().signal), []);
  assert.ok(lines.some((line) => line.includes('could not be read')));
});

test('managementUrl equal to serviceUrl, or none: no request at all', async () => {
  const fake = await FakeActuator.start({ links: ['info'] });
  try {
    assert.equal((await detectOn(fake, { serviceUrl: fake.managementUrl })).endpoints, []);
    assert.equal((await detectOn(fake, { managementUrl: null })).endpoints, []);
    assert.is(fake.requests.length, 0);
  } finally {
    await fake.close();
  }
});

test('an https index with http links: every link switched to https, with a warning', async () => {
  const body = { _links: { self: { href: 'http://app/actuator' }, info: { href: 'http://app/actuator/info' }, env: { href: 'https://app/actuator/env' }, rel: { href: 'beans' } } };
  const client: InstanceHttpClient = {
    request: async (): Promise<InstanceResponse> => ({ status: 200, headers: {}, contentType: ACTUATOR_V3, body: Buffer.from(JSON.stringify(body)) }),
  };
  const { strategy, lines } = strategyOver(client);
  const endpoints = await strategy.detect(instanceWith({ managementUrl: 'https://app/actuator' }), new AbortController().signal);
  assert.equal(endpoints, [
    { id: 'info', url: 'https://app/actuator/info' },
    { id: 'env', url: 'https://app/actuator/env' },
    { id: 'rel', url: 'beans' },
  ]);
  assert.ok(lines.some((line) => line.startsWith('warn ') && line.includes('https')), 'a warning');

  const plain = strategyOver(client);
  const kept = await plain.strategy.detect(instanceWith({ managementUrl: 'http://app/actuator' }), new AbortController().signal);
  assert.is(kept.find((e) => e.id === 'info')!.url, 'http://app/actuator/info', 'an http index keeps its links');
  assert.not.ok(plain.lines.some((line) => line.startsWith('warn ')));
});

test('an abort while the index is queried rejects instead of handing over', async () => {
  const controller = new AbortController();
  const fake = await FakeActuator.start({ links: null });
  // The instance never answers; the abort comes once the request has arrived.
  fake.on('GET', '', { handler: () => controller.abort(new Error('detection timed out')) });
  try {
    const { strategy } = strategyOver(fetchClient());
    const instance = instanceWith({ managementUrl: fake.managementUrl });
    await strategy.detect(instance, controller.signal).then(
      () => assert.unreachable('resolved'),
      (error: unknown) => assert.match(String(error), /detection timed out/),
    );
  } finally {
    await fake.close();
  }
});

test.run();
