import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';
import { startProvider, type TestProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { startVigil } from './support/vigil.js';

let provider: TestProvider;
let tk: TestKernel;

test.before(async () => {
  provider = await startProvider({ groups: { alice: ['ops', 'payments-oncall'] }, contextPath: '/admin' });
  tk = await startVigil(provider, { config: { 'context-path': '/admin' } });
});

test.after(async () => {
  await tk?.stop();
  await provider?.close();
});

test('a browser without a session is sent to sign in, signs in at the provider, and comes back to the page it asked for', async () => {
  const agent = new UserAgent();
  const origin = new URL(tk.url).origin;
  const first = await agent.send('GET', `${tk.url}/whoami?x=1`);
  assert.is(first.status, 302);
  assert.is(first.location, `${origin}/admin/login?return=${encodeURIComponent('/whoami?x=1')}`);

  const login = await agent.send('GET', first.location!);
  assert.is(login.status, 303);
  const authorize = new URL(login.location!);
  assert.is(`${authorize.origin}${authorize.pathname}`, `${provider.issuer}/auth`);
  const params = Object.fromEntries(authorize.searchParams);
  assert.equal(Object.keys(params).sort(), ['client_id', 'code_challenge', 'code_challenge_method', 'nonce', 'redirect_uri', 'response_type', 'scope', 'state']);
  assert.is(params.client_id, 'vigil');
  assert.is(params.response_type, 'code');
  assert.is(params.code_challenge_method, 'S256');
  assert.is(params.scope, 'openid profile email');
  assert.is(params.redirect_uri, `${origin}/admin/login/oidc/callback`);
  assert.match(params.state!, /^[A-Za-z0-9_-]{43}$/);
  assert.match(params.nonce!, /^[A-Za-z0-9_-]{43}$/);
  assert.is(login.setCookies.length, 1);
  assert.match(login.setCookies[0]!, /^vigil_login=[A-Za-z0-9_-]+; Path=\/admin\/login; Max-Age=600; HttpOnly; SameSite=Lax$/);

  const back = await agent.open(login.location!, { login: 'alice', stopAt: (url) => url.startsWith(`${origin}/admin/whoami`) });
  assert.is(back.status, 303, JSON.stringify(agent.steps.map((s) => [s.method, s.url, s.status, s.location, s.body.slice(-3000)]), null, 1));
  assert.is(back.url.split('?')[0], `${origin}/admin/login/oidc/callback`);
  assert.is(back.location, `${origin}/admin/whoami?x=1`);
  // The session cookie, exactly; the attempt's cookie cleared.
  const session = back.setCookies.find((line) => line.startsWith('vigil_session='));
  assert.match(session!, /^vigil_session=[A-Za-z0-9_-]{43}; Path=\/admin; HttpOnly; SameSite=Lax$/);
  assert.ok(back.setCookies.includes('vigil_login=; Path=/admin/login; Max-Age=0; HttpOnly; SameSite=Lax'), back.setCookies.join(' | '));

  const me = await agent.send('GET', back.location!, { headers: { accept: 'application/json' } });
  assert.is(me.status, 200, me.body);
  // Groups are not in the ID token here (the provider conforms to Core §5.4): they came from userinfo.
  assert.equal(JSON.parse(me.body), { user: 'alice', principal: { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops', 'payments-oncall'] } });
  assert.ok(tk.logs().some((line) => line.includes('alice signed in')));
});

test('an API or stream request without a session gets 401 JSON, never a redirect', async () => {
  for (const accept of ['application/json', 'text/event-stream', '*/*']) {
    const res = await call('GET', `${tk.url}/instances/events`, { headers: { accept } });
    assert.is(res.status, 401, accept);
    assert.is(res.headers.get('content-type'), 'application/json');
    assert.equal(Object.keys(res.json as object).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
    assert.is((res.json as { message: string }).message, 'authentication required; sign in at /admin/login');
    assert.is(res.headers.get('location'), null);
  }
  const post = await call('POST', `${tk.url}/instances`, { json: { name: 'x', healthUrl: 'http://127.0.0.1:1/h' } });
  assert.is(post.status, 401);
  assert.equal(tk.kernel.registry.list(), []);
});

test.run();
