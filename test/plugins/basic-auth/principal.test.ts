import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { definePlugin, type Principal, type VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

const PASSWORD = 'principal-Secret-1';
const TOKEN = 'principal-token-2';
const CLIENT = 'principal-client-3';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`;

/**
 * Stands in for a session-based authentication plugin (`oidc`): in the `pre` stage it vouches for
 * the caller named in a test header, as a valid session cookie would. It answers nothing itself.
 */
const vouch = definePlugin({
  name: 'vouch',
  configKey: null,
  setup(ctx) {
    ctx.http.hook('pre', (req) => {
      const name = req.headers['x-test-principal'];
      if (typeof name === 'string') req.principal = { name, kind: 'user', via: 'oidc', groups: ['ops'] };
    });
    ctx.http.route('GET', '/whoami', (req, res) => ctx.http.sendJson(res, 200, { user: req.user ?? null, principal: req.principal ?? null }));
  },
}) as VigilPlugin<never>;

let tk: TestKernel;

test.before(async () => {
  tk = await startTestKernel({
    plugins: ['rest-api', 'basic-auth', vouch],
    config: {
      'log-level': 'warn',
      'basic-auth': {
        users: [{ username: 'admin', password: PASSWORD }, { username: 'client', password: CLIENT, role: 'registration' }],
        tokens: [{ name: 'ci', token: TOKEN }],
      },
    },
  });
});

test.after(() => tk?.stop());

test('a request another plugin already authenticated passes basic-auth without credentials', async () => {
  const res = await call('GET', `${tk.url}/whoami`, { headers: { 'x-test-principal': 'alice' } });
  assert.is(res.status, 200, res.text);
  const principal: Principal = { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops'] };
  assert.equal(res.json, { user: null, principal });
  // Anything else still needs basic-auth's own credentials.
  const refused = await call('GET', `${tk.url}/whoami`);
  assert.is(refused.status, 401);
  assert.is(refused.headers.get('www-authenticate'), 'Basic realm="Vigil", charset="UTF-8"');
});

test('basic-auth names its own callers as principals: users via basic, tokens via token', async () => {
  const user = await call('GET', `${tk.url}/whoami`, { headers: { authorization: basic('admin', PASSWORD) } });
  assert.equal(user.json, { user: 'admin', principal: { name: 'admin', kind: 'user', via: 'basic', groups: [] } });
  const token = await call('GET', `${tk.url}/whoami`, { headers: { authorization: `Bearer ${TOKEN}` } });
  assert.equal(token.json, { user: 'token:ci', principal: { name: 'ci', kind: 'token', via: 'token', groups: [] } });
  // Its roles still hold for its own principals.
  const client = await call('GET', `${tk.url}/whoami`, { headers: { authorization: basic('client', CLIENT) } });
  assert.is(client.status, 403);
});

test.run();
