import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { call, type Reply } from '../../support/http.js';

const OPS = 'https://ops.example.com';
const EVIL = 'https://evil.example.net';
/** The conformance kit's daemon: context path /admin and the CONTRACT §2 cors section. */
const CONFORMANCE = {
  'context-path': '/admin',
  cors: {
    'allowed-origins': OPS,
    'allowed-methods': 'GET,POST,DELETE,OPTIONS',
    'allowed-headers': '*',
    'exposed-headers': 'Location',
    'allow-credentials': true,
    'max-age': 3600,
  },
};
const registration = { name: 'shop', healthUrl: 'http://127.0.0.1:1/actuator/health' };

async function withKernel(config: Record<string, unknown>, run: (tk: TestKernel) => Promise<void>): Promise<void> {
  const tk = await startTestKernel({ plugins: ['rest-api', 'cors'], config });
  try {
    await run(tk);
  } finally {
    await tk.stop();
  }
}

function corsHeaders(res: Reply): Record<string, string> {
  return Object.fromEntries([...res.headers].filter(([name]) => name.startsWith('access-control-') || name === 'vary'));
}

const preflightHeaders = (origin: string, method = 'POST', headers = 'content-type') =>
  ({ origin, 'access-control-request-method': method, 'access-control-request-headers': headers });

test('preflight from the configured origin: 204 with exactly the configured answer', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(OPS) });
  assert.is(res.status, 204);
  assert.is(res.text, '');
  assert.equal(corsHeaders(res), {
    'access-control-allow-credentials': 'true',
    'access-control-allow-headers': 'content-type',
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-origin': OPS,
    'access-control-max-age': '3600',
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  });
}));

test('preflights are answered on any path, before routing', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('OPTIONS', `${tk.url}/no/such/path`, { headers: preflightHeaders(OPS, 'DELETE') });
  assert.is(res.status, 204);
  assert.is(res.headers.get('access-control-allow-origin'), OPS);
}));

test('actual request from the configured origin: 201 exposes Location and allows credentials', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('POST', `${tk.url}/instances`, { json: registration, headers: { origin: OPS } });
  assert.is(res.status, 201);
  assert.match(res.headers.get('location') ?? '', /^\/admin\/instances\/[0-9a-f]{12}$/);
  assert.equal(corsHeaders(res), {
    'access-control-allow-credentials': 'true',
    'access-control-allow-origin': OPS,
    'access-control-expose-headers': 'Location',
    vary: 'Origin',
  });
  const list = await call('GET', `${tk.url}/instances`, { headers: { origin: OPS } });
  assert.is(list.status, 200);
  assert.is(list.headers.get('access-control-allow-origin'), OPS);
}));

test('another origin: the preflight is a 403 JSON error, the GET carries no Allow-Origin', () => withKernel(CONFORMANCE, async (tk) => {
  const preflight = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(EVIL) });
  assert.is(preflight.status, 403);
  assert.equal(corsHeaders(preflight), { vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers' });
  const body = preflight.json as Record<string, unknown>;
  assert.equal(body, {
    timestamp: body.timestamp, status: 403, error: 'Forbidden', message: 'CORS preflight refused: origin not allowed', path: '/admin/instances',
  });
  const get = await call('GET', `${tk.url}/instances`, { headers: { origin: EVIL } });
  assert.is(get.status, 200);
  assert.equal(corsHeaders(get), { vary: 'Origin' });
}));

test('a preflight asking for a method that is not allowed is refused', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(OPS, 'PATCH') });
  assert.is(res.status, 403);
  assert.is((res.json as { message: string }).message, 'CORS preflight refused: method PATCH not allowed');
  assert.is(res.headers.get('access-control-allow-origin'), null);
}));

test('requests without Origin get no CORS headers, only Vary: Origin (a cache must not hand them to another origin)', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('GET', `${tk.url}/instances`);
  assert.is(res.status, 200);
  assert.equal(corsHeaders(res), { vary: 'Origin' });
  // An OPTIONS without Origin is no preflight: it goes on to the routes (none serves OPTIONS).
  const options = await call('OPTIONS', `${tk.url}/instances`, { headers: { 'access-control-request-method': 'POST' } });
  assert.is(options.status, 404);
  assert.equal(corsHeaders(options), { vary: 'Origin' });
}));

test('an OPTIONS with Origin but no requested method is an actual request', () => withKernel(CONFORMANCE, async (tk) => {
  const res = await call('OPTIONS', `${tk.url}/instances`, { headers: { origin: OPS } });
  assert.is(res.status, 404);
  assert.is(res.headers.get('access-control-allow-origin'), OPS);
  assert.is(res.headers.get('vary'), 'Origin');
}));

test('defaults with one origin: 1800 s, every API method, no credentials header', () => withKernel({ cors: { 'allowed-origins': OPS } }, async (tk) => {
  const res = await call('OPTIONS', `${tk.url}/instances/abc`, { headers: preflightHeaders(OPS, 'DELETE', 'Authorization, Content-Type') });
  assert.is(res.status, 204);
  assert.equal(corsHeaders(res), {
    'access-control-allow-headers': 'Accept, Authorization, Content-Type, X-Requested-With',
    'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
    'access-control-allow-origin': OPS,
    'access-control-max-age': '1800',
    vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
  });
  const refused = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(OPS, 'POST', 'X-Custom') });
  assert.is(refused.status, 403);
}));

test('`*` without credentials: any origin reads, with the literal *', () => withKernel({ cors: { 'allowed-origins': '*' } }, async (tk) => {
  const res = await call('GET', `${tk.url}/instances`, { headers: { origin: EVIL } });
  assert.is(res.headers.get('access-control-allow-origin'), '*');
  assert.is(res.headers.get('access-control-allow-credentials'), null);
  const preflight = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(EVIL) });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), '*');
}));

test('nothing configured: a warning at start, and every preflight is refused', () => withKernel({}, async (tk) => {
  assert.ok(tk.logs().some((line) => line.includes('warn') && line.includes('no allowed-origins configured')));
  const res = await call('OPTIONS', `${tk.url}/instances`, { headers: preflightHeaders(OPS) });
  assert.is(res.status, 403);
}));

test('config: max-age forever is rejected naming cors and max-age', async () => {
  assert.equal(await checkPlugin('cors', { cors: { 'allowed-origins': OPS, 'max-age': 'forever' } }), [
    'plugin "cors": cors.max-age: must be a whole number of seconds (got forever)',
  ]);
});

test('config: credentials with `*` are refused rather than reflecting every origin', async () => {
  assert.equal(await checkPlugin('cors', { cors: { 'allowed-origins': '*', 'allow-credentials': true } }), [
    'plugin "cors": cors.allow-credentials: cannot be true while allowed-origins is "*" (any web page could read the API with the user\'s credentials); list the allowed origins',
  ]);
});

test('config: unknown keys, bad origins, methods, booleans and numbers are named', async () => {
  assert.equal(await checkPlugin('cors', { cors: { 'allowed-origin': OPS } }), ['plugin "cors": cors: unknown key(s): allowed-origin (did you mean "allowed-origins"?)']);
  assert.equal(await checkPlugin('cors', {
    cors: { 'allowed-origins': [`${OPS}/admin`], 'allowed-methods': 'GET,P(ST', 'allowed-headers': 42, 'allow-credentials': 'maybe', 'max-age': 1.5 },
  }), [
    'plugin "cors": cors.allowed-origins: must list origins such as https://ops.example.com (scheme, host, optional port, no path) or *',
    'plugin "cors": cors.allowed-methods: must list HTTP methods (letters, digits and -) or *',
    'plugin "cors": cors.allowed-headers: must be a comma-separated string or a list of header names',
    'plugin "cors": cors.allow-credentials: must be true or false',
    'plugin "cors": cors.max-age: must be a whole number of seconds',
  ]);
  assert.equal(await checkPlugin('cors', { cors: { 'allowed-origins': 42, 'allow-credentials': true } }), [
    'plugin "cors": cors.allowed-origins: must be a comma-separated string or a list of origins',
  ]);
  assert.equal(await checkPlugin('cors', { cors: 'yes' }), ['plugin "cors": cors: must be a mapping of keys to values']);
  assert.equal(await checkPlugin('cors', { cors: { 'max-age': '600' } }), []);
  assert.equal(await checkPlugin('cors', {}), []);
});

test.run();
