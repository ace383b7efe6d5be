import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { hashPassword } from '../../../plugins/basic-auth/password-hash.js';
import { hashToken } from '../../../plugins/basic-auth/token-hash.js';
import { call, type Reply } from '../../support/http.js';

const PASSWORD = 'pw-Secret-123';
const TOKEN = 'tok-Secret-456';
const CLIENT_PASSWORD = 'client-Secret-789';
const OPS = 'https://ops.example.com';
const CHALLENGE = 'Basic realm="Vigil", charset="UTF-8"';
const registration = { name: 'shop', healthUrl: 'http://127.0.0.1:1/actuator/health' };
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;
const ADMIN = { authorization: basic('admin', PASSWORD) };

/** Answers who the request was authenticated as: `req.user`, as a route sees it. */
const whoami = definePlugin({
  name: 'whoami',
  configKey: null,
  setup(ctx) {
    ctx.http.route('GET', '/whoami', (req, res) => ctx.http.sendJson(res, 200, { user: req.user ?? null }));
  },
}) as VigilPlugin<never>;

interface Options {
  readonly plugins?: readonly string[];
  readonly config?: Record<string, unknown>;
}

async function withKernel(options: Options, run: (tk: TestKernel) => Promise<void>): Promise<void> {
  const tk = await startTestKernel({
    plugins: [...(options.plugins ?? ['rest-api', 'basic-auth']), whoami],
    config: options.config ?? {
      'basic-auth': {
        users: [
          { username: 'admin', password: '${VIGIL_ADMIN_PASSWORD}' },
          { username: 'client', password: await hashPassword(CLIENT_PASSWORD), role: 'registration' },
        ],
        tokens: [
          { name: 'ci', token: TOKEN },
          { name: 'agent', 'token-hash': hashToken('agent-token'), role: 'registration' },
          { name: 'human', 'token-hash': await hashPassword('human-token') },
        ],
      },
    },
    env: { VIGIL_ADMIN_PASSWORD: PASSWORD },
  });
  try {
    await run(tk);
  } finally {
    await tk.stop();
  }
}

function assertError(res: Reply, status: number, message: string, path: string): void {
  assert.is(res.status, status, `${path}: ${res.text}`);
  const body = res.json as Record<string, unknown>;
  assert.match(res.headers.get('content-type') ?? '', 'application/json');
  assert.equal(body, { timestamp: body.timestamp, status, error: status === 401 ? 'Unauthorized' : 'Forbidden', message, path });
}

function assertUnauthorized(res: Reply, message: string, path: string, challenge = CHALLENGE): void {
  assertError(res, 401, message, path);
  assert.is(res.headers.get('www-authenticate'), challenge);
}

test('without credentials: 401 with a Basic challenge on routes, unknown paths, streams and proxy paths', () => withKernel({}, async (tk) => {
  const id = (await tk.kernel.registry.register({ ...registration, managementUrl: '', serviceUrl: '', metadata: {}, source: 'test' })).id;
  const requests: [string, string, Record<string, string>?][] = [
    ['GET', '/instances'], ['GET', `/instances/${id}`], ['GET', '/applications'], ['GET', '/instances/events'],
    ['GET', '/instances/events', { accept: 'text/event-stream' }], ['GET', `/instances/${id}/actuator/health`],
    ['POST', `/instances/${id}/actuator/shutdown`], ['GET', '/no/such/path'], ['OPTIONS', '/instances'],
    ['DELETE', `/instances/${id}`], ['DELETE', '/applications/shop'], ['GET', '/'],
  ];
  for (const [method, path, headers] of requests) {
    assertUnauthorized(await call(method, `${tk.url}${path}`, { headers: headers ?? {} }), 'authentication required', path);
  }
  assertUnauthorized(await call('POST', `${tk.url}/instances`, { json: { ...registration, name: 'intruder' } }), 'authentication required', '/instances');
  assert.equal(tk.kernel.registry.list().map((instance) => instance.id), [id]);
  assert.is(tk.kernel.registry.get(id)?.registered, true);
}));

test('wrong password, unknown user, wrong case: 401 bad credentials', () => withKernel({}, async (tk) => {
  for (const authorization of [basic('admin', `${PASSWORD}-wrong`), basic('intruder', PASSWORD), basic('Admin', PASSWORD), basic('admin', '')]) {
    for (const method of ['GET', 'DELETE']) {
      assertUnauthorized(await call(method, `${tk.url}/instances`, { headers: { authorization } }), 'bad credentials', '/instances');
    }
  }
}));

test('malformed Authorization headers: 401', () => withKernel({}, async (tk) => {
  for (const authorization of ['Basic !!!not-base64', 'Basic', `Basic ${Buffer.from('admin').toString('base64')}`, `Basic ${Buffer.from(`:${PASSWORD}`).toString('base64')}`, 'Digest username="admin"']) {
    assertUnauthorized(await call('GET', `${tk.url}/instances`, { headers: { authorization } }), 'malformed Authorization header', '/instances');
  }
  const bearer = await call('GET', `${tk.url}/instances`, { headers: { authorization: 'Bearer two words' } });
  assertUnauthorized(bearer, 'malformed Authorization header', '/instances', `${CHALLENGE}, Bearer realm="Vigil", error="invalid_token"`);
}));

test('right credentials: the plain password from ${VIGIL_ADMIN_PASSWORD} works everywhere and sets req.user', () => withKernel({}, async (tk) => {
  const created = await call('POST', `${tk.url}/instances`, { json: registration, headers: ADMIN });
  assert.is(created.status, 201);
  const { id } = created.json as { id: string };
  assert.is((await call('GET', `${tk.url}/instances`, { headers: ADMIN })).status, 200);
  assert.is((await call('GET', `${tk.url}/applications`, { headers: ADMIN })).status, 200);
  assert.is((await call('GET', `${tk.url}/no/such/path`, { headers: ADMIN })).status, 404);
  assert.equal((await call('GET', `${tk.url}/whoami`, { headers: ADMIN })).json, { user: 'admin' });
  assert.is((await call('DELETE', `${tk.url}/instances/${id}`, { headers: ADMIN })).status, 204);
}));

test('bearer tokens: plain (hashed at setup), sha256 and scrypt token hashes; wrong tokens get both challenges', () => withKernel({}, async (tk) => {
  const who = async (token: string) => (await call('GET', `${tk.url}/whoami`, { headers: { authorization: `Bearer ${token}` } }));
  assert.equal((await who(TOKEN)).json, { user: 'token:ci' });
  assert.equal((await who('human-token')).json, { user: 'token:human' });
  const wrong = await who('not-a-token');
  assertUnauthorized(wrong, 'bad credentials', '/whoami', `${CHALLENGE}, Bearer realm="Vigil", error="invalid_token"`);
  // A token is not a password, nor the other way round.
  assert.is((await call('GET', `${tk.url}/whoami`, { headers: { authorization: basic('ci', TOKEN) } })).status, 401);
  assert.is((await who(PASSWORD)).status, 401);
}));

test('registration role: POST and DELETE /instances only; everything else is 403', () => withKernel({}, async (tk) => {
  for (const authorization of [basic('client', CLIENT_PASSWORD), 'Bearer agent-token']) {
    const headers = { authorization };
    const created = await call('POST', `${tk.url}/instances`, { json: registration, headers });
    assert.is(created.status, 201);
    const { id } = created.json as { id: string };
    // What the role may do instead, and the action refused (no route, as here without the proxy, or a route that declares none, is "other").
    const message = (action: string) => `role "registration" may only register (POST /instances) and deregister (DELETE /instances/{id}) (action "${action}")`;
    for (const [method, path, action] of [
      ['GET', '/instances', 'instances.read'], ['GET', `/instances/${id}`, 'instances.read'], ['GET', '/instances/events', 'instances.read'],
      ['GET', '/applications', 'applications.read'], ['GET', `/instances/${id}/actuator/health`, 'other'],
      ['POST', `/instances/${id}/actuator/env`, 'other'], ['DELETE', '/applications/shop', 'applications.deregister'],
      ['GET', '/whoami', 'other'], ['OPTIONS', '/instances', 'other'],
    ] as const) {
      assertError(await call(method, `${tk.url}${path}`, { headers }), 403, message(action), path);
    }
    assert.is(tk.kernel.registry.get(id)?.registered, true);
    assert.is((await call('DELETE', `${tk.url}/instances/${id}`, { headers })).status, 204);
    assert.is(tk.kernel.registry.get(id)?.registered, false);
  }
}));

test('registration role under a context path', () => withKernel({
  config: { 'context-path': '/admin', 'basic-auth': { users: [{ username: 'client', password: CLIENT_PASSWORD, role: 'registration' }] } },
}, async (tk) => {
  const headers = { authorization: basic('client', CLIENT_PASSWORD) };
  const created = await call('POST', `${tk.url}/instances`, { json: registration, headers });
  assert.is(created.status, 201);
  assertError(await call('GET', `${tk.url}/instances`, { headers }), 403,
    'role "registration" may only register (POST /admin/instances) and deregister (DELETE /admin/instances/{id}) (action "instances.read")', '/admin/instances');
  assert.is((await call('DELETE', `${tk.url}/instances/${(created.json as { id: string }).id}`, { headers })).status, 204);
}));

test('a successful check is remembered: one scrypt verification for repeated requests', () => withKernel({}, async (tk) => {
  for (let i = 0; i < 5; i++) assert.is((await call('GET', `${tk.url}/instances`, { headers: ADMIN })).status, 200);
  const verified = tk.logs().filter((line) => line.includes('verified basic credentials of admin'));
  assert.is(verified.length, 1);
  // A wrong password is never remembered: each attempt is checked (and refused) again.
  for (let i = 0; i < 2; i++) assert.is((await call('GET', `${tk.url}/instances`, { headers: { authorization: basic('admin', 'guess') } })).status, 401);
  assert.is(tk.logs().filter((line) => line.includes('401 for GET /instances: bad credentials')).length, 2);
}));

test('no secret, hash or Authorization header ever reaches the log', () => withKernel({}, async (tk) => {
  for (const headers of [ADMIN, { authorization: basic('admin', 'typo-Secret') }, { authorization: `Bearer ${TOKEN}` }, { authorization: 'Bearer wrong-Secret' }, {}]) {
    await call('GET', `${tk.url}/instances`, { headers });
  }
  const logs = tk.logs().join('\n');
  assert.match(logs, 'verified basic credentials of admin');
  assert.match(logs, 'password(s) in the config are plain text');
  for (const secret of [PASSWORD, TOKEN, CLIENT_PASSWORD, 'typo-Secret', 'wrong-Secret', ADMIN.authorization.slice(6), 'scrypt$', 'sha256$', 'Basic ']) {
    assert.not.ok(logs.includes(secret), `the log contains ${secret}`);
  }
}));

test('with cors: preflights pass without credentials, actual requests still need them (and can read the 401)', () => withKernel({
  plugins: ['rest-api', 'cors', 'basic-auth'],
  config: {
    cors: { 'allowed-origins': OPS, 'allow-credentials': true },
    'basic-auth': { users: [{ username: 'admin', password: PASSWORD }] },
  },
}, async (tk) => {
  const preflight = await call('OPTIONS', `${tk.url}/instances`, {
    headers: { origin: OPS, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });
  assert.is(preflight.status, 204);
  assert.is(preflight.headers.get('access-control-allow-origin'), OPS);
  assert.is(preflight.headers.get('www-authenticate'), null);
  const refused = await call('GET', `${tk.url}/instances`, { headers: { origin: OPS } });
  assertUnauthorized(refused, 'authentication required', '/instances');
  assert.is(refused.headers.get('access-control-allow-origin'), OPS);
  // Not a preflight (no requested method): authentication applies.
  assert.is((await call('OPTIONS', `${tk.url}/instances`, { headers: { origin: OPS } })).status, 401);
  const allowed = await call('GET', `${tk.url}/instances`, { headers: { origin: OPS, ...ADMIN } });
  assert.is(allowed.status, 200);
  assert.is(allowed.headers.get('access-control-allow-credentials'), 'true');
}));

test('a custom realm is used in the challenge', () => withKernel({
  config: { 'basic-auth': { realm: 'Ops Registry', users: [{ username: 'admin', password: PASSWORD }] } },
}, async (tk) => {
  const res = await call('GET', `${tk.url}/instances`);
  assert.is(res.headers.get('www-authenticate'), 'Basic realm="Ops Registry", charset="UTF-8"');
}));

test.run();
