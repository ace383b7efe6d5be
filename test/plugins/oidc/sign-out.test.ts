import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { signIn, startVigil, whoIs } from './support/vigil.js';

test('signing out ends the session, clears the cookie, and signs out at the provider, which sends the browser back', async () => {
  const provider = await startProvider({ contextPath: '/admin' });
  const tk = await startVigil(provider, { config: { 'context-path': '/admin' } });
  try {
    const origin = new URL(tk.url).origin;
    const agent = new UserAgent();
    const id = await signIn(agent, tk.url, 'alice');
    const out = await agent.send('POST', `${tk.url}/logout`, { form: {} });
    assert.is(out.status, 303);
    assert.equal(out.setCookies, ['vigil_session=; Path=/admin; Max-Age=0; HttpOnly; SameSite=Lax']);
    const end = new URL(out.location!);
    assert.is(`${end.origin}${end.pathname}`, `${provider.issuer}/session/end`);
    assert.is(end.searchParams.get('client_id'), 'vigil');
    assert.is(end.searchParams.get('post_logout_redirect_uri'), `${origin}/admin/login/signed-out`);
    assert.match(end.searchParams.get('id_token_hint')!, /^eyJ[\w-]+\.[\w-]+\.[\w-]+$/);

    // Over here at once, before the browser even reaches the provider.
    const replay = new UserAgent();
    replay.setCookie(tk.url, 'vigil_session', id);
    assert.is(await whoIs(replay, tk.url), 401);
    assert.is(await whoIs(agent, tk.url), 401);

    // The provider asks to confirm (its logout form), then sends the browser to the signed-out page.
    const confirm = await agent.send('GET', out.location!);
    assert.is(confirm.status, 200);
    const action = /<form[^>]*action="([^"]+)"/.exec(confirm.body)![1]!;
    const xsrf = /name="xsrf" value="([^"]+)"/.exec(confirm.body)![1]!;
    const done = await agent.send('POST', new URL(action, out.location!).href, { form: { xsrf, logout: 'yes' } });
    assert.is(done.status, 303);
    assert.is(done.location, `${origin}/admin/login/signed-out`);
    const page = await agent.send('GET', done.location!);
    assert.is(page.status, 200);
    assert.match(page.body, '<h1>Signed out</h1>');
    assert.match(page.body, '<a href="/admin/login">Sign in again</a>');
    assert.is(page.contentType, 'text/html; charset=utf-8');
    assert.ok(tk.logs().some((line) => line.includes('alice signed out, and is sent to the identity provider to sign out there')));

    // Signed out at the provider too: signing in again asks for the login form.
    const again = await agent.open(`${tk.url}/login`);
    assert.match(again.body, 'name="prompt" value="login"');
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('without an end_session_endpoint, or without a session: straight to the signed-out page; JSON clients are told where to go', async () => {
  const provider = await startProvider({ endSession: false });
  const tk = await startVigil(provider);
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'alice');
    const out = await agent.send('POST', `${tk.url}/logout`, { headers: { accept: 'application/json' }, form: {} });
    assert.is(out.status, 200);
    assert.equal(JSON.parse(out.body), { location: '/login/signed-out' });
    assert.equal(out.setCookies, ['vigil_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
    assert.is(await whoIs(agent, tk.url), 401);
    const nobody = await new UserAgent().send('POST', `${tk.url}/logout`, { form: {} });
    assert.is(nobody.status, 303);
    assert.is(nobody.location, `${new URL(tk.url).origin}/login/signed-out`);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('a sign-out posted from another site is refused and ends nothing', async () => {
  const provider = await startProvider();
  const tk = await startVigil(provider);
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'alice');
    const forged = await agent.send('POST', `${tk.url}/logout`, { headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' }, form: {} });
    assert.is(forged.status, 403);
    assert.equal(forged.setCookies, []);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: [] });
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test.run();
