import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { corsSchema } from '../../../plugins/cors/config.js';
import { normaliseOrigin } from '../../../plugins/cors/origin.js';
import { CorsPolicy, type CorsDecision, type CorsRequest } from '../../../plugins/cors/policy.js';
import { appendVary } from '../../../core/kits/runtime/vary.js';

const OPS = 'https://ops.example.com';
const policy = async (section: Record<string, unknown>) => new CorsPolicy(await corsSchema.validate(section));
const preflight = (origin: string, method = 'POST', headers?: string): CorsRequest =>
  ({ method: 'OPTIONS', origin, requestMethod: method, requestHeaders: headers });
const headersOf = (decision: CorsDecision) => ('headers' in decision ? decision.headers : undefined);
const actual = (origin: string | undefined, method = 'GET'): CorsRequest =>
  ({ method, origin, requestMethod: undefined, requestHeaders: undefined });

test('defaults: no origin allowed, methods of the API, 30 min, no credentials, Location exposed', async () => {
  const config = await corsSchema.validate(undefined);
  assert.equal(config, {
    'allowed-origins': [],
    'allowed-methods': ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'],
    'allowed-headers': ['Accept', 'Authorization', 'Content-Type', 'X-Requested-With'],
    'exposed-headers': ['Location'],
    'allow-credentials': false,
    'max-age': 1800,
  });
  const cors = new CorsPolicy(config);
  assert.is(cors.decide(preflight(OPS)).kind, 'refused');
  assert.equal(cors.decide(actual(OPS)), { kind: 'actual', headers: { vary: 'Origin' } });
});

test('strings and YAML lists both work; origins are normalised, methods upper-cased', async () => {
  const config = await corsSchema.validate({
    'allowed-origins': [' HTTPS://Ops.Example.com:443/ ', 'http://localhost:3000'],
    'allowed-methods': 'get, post,',
    'exposed-headers': [],
  });
  assert.equal(config['allowed-origins'], [OPS, 'http://localhost:3000']);
  assert.equal(config['allowed-methods'], ['GET', 'POST']);
  const cors = new CorsPolicy(config);
  assert.equal(headersOf(cors.decide(actual('http://localhost:3000'))), { vary: 'Origin', 'access-control-allow-origin': 'http://localhost:3000' });
  assert.is(cors.decide(actual('http://localhost:3001')).kind, 'actual');
  assert.equal(headersOf(cors.decide(actual('http://localhost:3001'))), { vary: 'Origin' });
});

test('without Origin nothing happens, even on OPTIONS', async () => {
  const cors = await policy({ 'allowed-origins': '*' });
  assert.equal(cors.decide(actual(undefined)), { kind: 'none' });
  assert.equal(cors.decide({ method: 'OPTIONS', origin: undefined, requestMethod: 'POST', requestHeaders: undefined }), { kind: 'none' });
});

test('preflight: methods and headers are checked; `*` echoes what was asked', async () => {
  const listed = await policy({ 'allowed-origins': OPS, 'allowed-methods': 'GET,POST', 'allowed-headers': 'Content-Type' });
  assert.equal(listed.decide(preflight(OPS, 'PATCH')).kind, 'refused');
  const refused = listed.decide(preflight(OPS, 'POST', 'content-type, x-evil'));
  assert.equal(refused, {
    kind: 'refused',
    reason: 'CORS preflight refused: header(s) x-evil not allowed',
    headers: { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' },
  });
  const ok = listed.decide(preflight(OPS, 'post', 'CONTENT-TYPE'));
  assert.is(ok.kind, 'preflight');
  assert.is(ok.kind === 'preflight' && ok.headers['access-control-allow-methods'], 'GET, POST');
  assert.is(ok.kind === 'preflight' && ok.headers['access-control-allow-headers'], 'Content-Type');

  const any = await policy({ 'allowed-origins': OPS, 'allowed-methods': '*', 'allowed-headers': '*' });
  const echoed = any.decide(preflight(OPS, 'PROPFIND', 'x-one, X-Two'));
  assert.equal(echoed, {
    kind: 'preflight',
    headers: {
      vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      'access-control-allow-origin': OPS,
      'access-control-allow-methods': 'PROPFIND',
      'access-control-max-age': '1800',
      'access-control-allow-headers': 'x-one, X-Two',
    },
  });
  // Nothing asked, nothing sent.
  const bare = any.decide(preflight(OPS, 'GET'));
  assert.is(bare.kind === 'preflight' && 'access-control-allow-headers' in bare.headers, false);
});

test('`*` without credentials answers `*`; the opaque origin null is never trusted', async () => {
  const cors = await policy({ 'allowed-origins': '*' });
  assert.equal(headersOf(cors.decide(actual('https://anyone.example'))), {
    vary: 'Origin', 'access-control-allow-origin': '*', 'access-control-expose-headers': 'Location',
  });
  assert.equal(headersOf(cors.decide(actual('null'))), { vary: 'Origin' });
  assert.is(cors.decide(preflight('null')).kind, 'refused');
  assert.is(cors.decide(preflight('https://anyone.example')).kind, 'preflight');
});

test('an origin that only looks like an allowed one is not allowed', async () => {
  const cors = await policy({ 'allowed-origins': OPS, 'allow-credentials': true });
  for (const origin of ['https://ops.example.com.evil.net', 'http://ops.example.com', 'https://ops.example.com:8443', 'https://evil.net/https://ops.example.com']) {
    assert.equal(headersOf(cors.decide(actual(origin))), { vary: 'Origin' }, origin);
    assert.is(cors.decide(preflight(origin)).kind, 'refused', origin);
  }
});

test('normaliseOrigin accepts origins only', () => {
  assert.is(normaliseOrigin('HTTPS://Ops.Example.com:443/'), OPS);
  assert.is(normaliseOrigin('http://localhost:8080'), 'http://localhost:8080');
  for (const bad of ['null', '*', 'ops.example.com', 'https://ops.example.com/admin', 'https://u:p@ops.example.com', 'https://ops.example.com?x=1', 'https://ops.example.com#x', 'file:///etc']) {
    assert.is(normaliseOrigin(bad), undefined, bad);
  }
});

test('appendVary keeps what is there and adds each name once', () => {
  const headers = new Map<string, unknown>();
  // A minimal stand-in: appendVary only reads and writes one header.
  const res = { getHeader: (name: string) => headers.get(name), setHeader: (name: string, value: unknown) => headers.set(name, value) } as unknown as ServerResponse;
  appendVary(res, 'Origin');
  assert.is(headers.get('vary'), 'Origin');
  headers.set('vary', ['Accept', 'origin']);
  appendVary(res, 'Origin, Access-Control-Request-Method');
  assert.is(headers.get('vary'), 'Accept, origin, Access-Control-Request-Method');
  headers.delete('vary');
  appendVary(res, ' , ');
  assert.is(headers.has('vary'), false);
});

test.run();
