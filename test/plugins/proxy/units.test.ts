import { PassThrough, Readable } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HttpError } from '../../../core/plugin-api.js';
import { checkPlugin } from '../../../bin/testing.js';
import { collectBody } from '../../../plugins/proxy/body.js';
import { parseCidr } from '../../../core/cidr.js';
import { proxyConfigSchema } from '../../../plugins/proxy/config-schema.js';
import { Exchange } from '../../../plugins/proxy/exchange.js';
import { ClientGoneError, upstreamFailure } from '../../../plugins/proxy/forward.js';
import { filterHeaders, ignoredSet, upstreamHeaders } from '../../../plugins/proxy/headers.js';
import { ACTUATOR_ACCEPT as DEFAULT_ACCEPT, mapLimit } from '../../../core/kits/runtime/index.js';
import { rawProxyPath } from '../../../plugins/proxy/request-path.js';
import { ProxyRuntime } from '../../../plugins/proxy/runtime.js';
import { SSRF_REFUSED } from '../../../core/errors.js';
import { testOutbound } from '../../support/outbound.js';
import { buildTarget, endpointLocation, parseProxyPath } from '../../../plugins/proxy/target-url.js';

function statusOf(fn: () => unknown): number {
  try {
    fn();
  } catch (error) {
    if (error instanceof HttpError) return error.status;
    throw error;
  }
  return 0;
}

test('rawProxyPath keeps the raw encoding, drops a fragment, and honours the context path', () => {
  assert.equal(rawProxyPath('/instances/abc/actuator/test/has%20spaces?x=%2F#frag', ''), { rest: 'test/has%20spaces', query: '?x=%2F' });
  assert.equal(rawProxyPath('/admin/instances/abc/actuator', '/admin'), { rest: '', query: '' });
  assert.equal(rawProxyPath('/ADMIN/Applications/shop/Actuator/health?', '/admin'), { rest: 'health', query: '' });
  assert.is(statusOf(() => rawProxyPath('/instances/abc/other/health', '')), 400);
});

test('parseProxyPath splits the endpoint id from the tail and encodes what URLs must not carry raw', () => {
  assert.equal(parseProxyPath('metrics/jvm.memory.used', '?tag=a:b'), { endpointId: 'metrics', tail: '/jvm.memory.used', query: '?tag=a:b' });
  assert.equal(parseProxyPath('health', ''), { endpointId: 'health', tail: '', query: '' });
  assert.equal(parseProxyPath('env/', ''), { endpointId: 'env', tail: '/', query: '' });
  assert.equal(parseProxyPath('env/a b"c', '?q=a b'), { endpointId: 'env', tail: '/a%20b%22c', query: '?q=a%20b' });
  assert.equal(parseProxyPath('loggers/com.example%24Inner', ''), { endpointId: 'loggers', tail: '/com.example%24Inner', query: '' });
  assert.is(statusOf(() => parseProxyPath('', '')), 404);
  assert.is(statusOf(() => parseProxyPath('env', '?\ud800')), 400);
  for (const nasty of ['/health', 'health//x', 'health/./x', 'health/%2E', 'health/..;a', 'health/%5C', 'health/a%2fb', 'health/%7f', 'health/%25%32%65']) {
    assert.is(statusOf(() => parseProxyPath(nasty, '')), 400, nasty);
  }
});

test('buildTarget stays on the endpoint: joins queries, handles trailing and root paths, refuses odd schemes', () => {
  const path = parseProxyPath('metrics/a', '?tag=x');
  const withQuery = buildTarget(new URL('http://h:1/actuator/metrics?scope=all'), path);
  assert.is(withQuery.path, '/actuator/metrics/a?scope=all&tag=x');
  assert.is(withQuery.origin, 'http://h:1');
  assert.is(buildTarget(new URL('http://h/actuator/metrics/'), parseProxyPath('metrics/a', '')).path, '/actuator/metrics/a');
  assert.is(buildTarget(new URL('http://h/'), parseProxyPath('root', '')).path, '/');
  assert.is(buildTarget(new URL('http://h/'), parseProxyPath('root/x', '')).path, '/x');
  assert.is(buildTarget(new URL('http://h/actuator/env?own=1'), parseProxyPath('env', '')).path, '/actuator/env?own=1');
  assert.is(statusOf(() => buildTarget(new URL('file:///etc/passwd'), parseProxyPath('env', ''))), 502);
  assert.is(statusOf(() => endpointLocation('http://[bad', undefined, 'env')), 502);
  assert.is(endpointLocation('/actuator/x', 'http://h:2/actuator', 'x').href, 'http://h:2/actuator/x');
});

test('headers: hop-by-hop, Connection-named and ignored headers dropped; defaults and credentials added', () => {
  const ignored = ignoredSet([' Cookie', 'SET-COOKIE', 'Authorization']);
  const incoming = {
    host: 'vigil', connection: ['close', 'x-a'] as unknown as string, 'keep-alive': '5', 'x-a': '1', 'x-b': '2', cookie: 'c',
    'transfer-encoding': 'chunked', expect: '100-continue', 'content-length': '3', 'accept-encoding': 'gzip', 'set-cookie': ['a', 'b'],
  };
  assert.equal(filterHeaders(incoming, ignored), { 'x-b': '2', expect: '100-continue', 'content-length': '3', 'accept-encoding': 'gzip' });
  assert.equal(upstreamHeaders(incoming, { ignored, endpointId: 'env', authorization: 'Basic eA==', withBody: false, identity: true }),
    { 'x-b': '2', accept: DEFAULT_ACCEPT, authorization: 'Basic eA==' });
  assert.equal(upstreamHeaders({ accept: '*/*', 'content-length': '3' }, { ignored, endpointId: 'logfile', authorization: undefined, withBody: true }),
    { accept: '*/*', 'content-length': '3' });
});

test('config: defaults, durations, unknown keys and bad CIDRs', async () => {
  const defaults = await proxyConfigSchema.validate(undefined);
  assert.equal(defaults, {
    timeout: 10_000,
    'body-idle-timeout': 60_000,
    'ignored-headers': ['Cookie', 'Set-Cookie', 'Authorization'],
    'fan-out-max-bytes': 32 * 1024 * 1024,
    'max-concurrent-fan-outs': 4,
    'fan-out': { concurrency: 8, 'max-response-bytes': 10 * 1024 * 1024 },
  });
  const custom = await proxyConfigSchema.validate({ timeout: '2s', 'body-idle-timeout': 0 });
  assert.is(custom.timeout, 2000);
  assert.is(custom['body-idle-timeout'], 0);
  const problems = await checkPlugin('proxy', {
    proxy: { timeot: '1s', timeout: 'soon', 'fan-out': { extra: 1 }, 'ssrf-protection': { 'allowed-cidrs': ['10.0.0.0/33', 'nope'] } },
  });
  const text = problems.join('\n');
  for (const expected of ['timeot', 'proxy.timeout', 'extra', '10.0.0.0/33', 'nope']) assert.match(text, expected);
  // A lone typo, with nothing else wrong, must still be reported.
  assert.match((await checkPlugin('proxy', { proxy: { 'fan-out': { concurency: 2 } } })).join('\n'), 'concurency');
  assert.match((await checkPlugin('proxy', { proxy: { timout: '1s' } })).join('\n'), 'timout');
  assert.equal(await checkPlugin('proxy', { proxy: { 'ssrf-protection': { enabled: true, 'allowed-cidrs': ['::1', '10.0.0.0/8'] } } }), []);
});

test('parseCidr accepts addresses and prefixes of both families', () => {
  assert.equal(parseCidr('10.0.0.0/8'), { address: '10.0.0.0', prefix: 8, family: 'ipv4' });
  assert.equal(parseCidr('::1'), { address: '::1', prefix: 128, family: 'ipv6' });
  for (const bad of ['10.0.0.0/', '10.0.0.0/x', '1.2.3.4/8/9', 'fe80::/129', 'host/8']) assert.is(parseCidr(bad), undefined, bad);
});

test('mapLimit keeps order and never runs more than the limit at once', async () => {
  let running = 0;
  let peak = 0;
  const results = await mapLimit([1, 2, 3, 4, 5], 2, async (n) => {
    running += 1;
    peak = Math.max(peak, running);
    await Promise.resolve();
    running -= 1;
    return n * 10;
  });
  assert.equal(results, [10, 20, 30, 40, 50]);
  assert.is(peak, 2);
  assert.equal(await mapLimit([], 4, async () => 1), []);
});

test('Exchange: the first cause wins, aborts cascade to children, a dead parent aborts new children', () => {
  const shutdown = new AbortController();
  const root = new Exchange().follow(shutdown.signal, 'shutdown');
  const request = root.child();
  const instance = request.child();
  const finished = root.child();
  finished.dispose();
  shutdown.abort();
  assert.is(request.cause, 'shutdown');
  assert.is(instance.cause, 'shutdown');
  assert.ok(instance.signal.aborted);
  assert.is(finished.cause, undefined);
  request.abort('timeout');
  assert.is(request.cause, 'shutdown');
  assert.is(root.child().cause, 'shutdown');
  const late = new Exchange().follow(shutdown.signal, 'client-gone');
  assert.is(late.cause, 'client-gone');
});

test('upstreamFailure maps causes and codes to 504, 502, 403 or "client gone"', () => {
  const target = { endpointId: 'env', url: new URL('http://h/actuator/env'), origin: 'http://h', path: '/actuator/env' };
  const status = (error: unknown, exchange = new Exchange()) => {
    const failure = upstreamFailure(error, { target, exchange, timeoutMs: 5 });
    return failure instanceof HttpError ? failure.status : failure instanceof ClientGoneError ? 'gone' : 'other';
  };
  const timedOut = new Exchange();
  timedOut.abort('timeout');
  const gone = new Exchange();
  gone.abort('client-gone');
  assert.is(status(new Error('x'), timedOut), 504);
  assert.is(status(new Error('x'), gone), 'gone');
  assert.is(status(Object.assign(new Error('x'), { code: 'UND_ERR_CONNECT_TIMEOUT' })), 504);
  assert.is(status(Object.assign(new Error('x'), { cause: { code: 'UND_ERR_HEADERS_TIMEOUT' } })), 504);
  assert.is(status(Object.assign(new Error('refused'), { code: SSRF_REFUSED })), 403);
  assert.is(status(Object.assign(new Error('x'), { code: 'ECONNRESET' })), 502);
  assert.is(status('weird'), 502);
});

test('collectBody stops at the limit and destroys the stream', async () => {
  const small = await collectBody(Readable.from([Buffer.from('ab'), Buffer.from('cd')]), 10);
  assert.is(small?.toString(), 'abcd');
  const stream = new PassThrough();
  stream.end(Buffer.alloc(20));
  assert.is(await collectBody(stream, 10), undefined);
  assert.ok(stream.destroyed);
});

test('the runtime refuses calls outside start..stop and closes idempotently', async () => {
  const config = await proxyConfigSchema.validate({});
  const log = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined, child: () => log };
  const runtime = new ProxyRuntime(config, { resolve: async () => { throw new Error('unused'); } }, log, testOutbound());
  assert.is(statusOf(() => runtime.dispatcher()), 503);
  runtime.open();
  assert.ok(runtime.dispatcher());
  await runtime.close();
  await runtime.close();
  assert.is(statusOf(() => runtime.dispatcher()), 503);
});

test.run();
