import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { capture } from '../../hardening/support/capture.js';
import { startProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { startVigil, whoIs } from './support/vigil.js';

const PUBLIC = 'https://vigil.example.test/ops';

test('behind a TLS proxy (base-url https, a context path): the redirect URI, every redirect and Secure cookies use the public URL', async () => {
  const provider = await startProvider({ publicBase: PUBLIC });
  const tk = await startVigil(provider, { config: { 'context-path': '/ops' }, oidc: { 'base-url': PUBLIC } });
  try {
    const agent = new UserAgent();
    const page = await agent.send('GET', `${tk.url}/whoami`);
    assert.is(page.status, 302);
    assert.is(page.location, `${PUBLIC}/login?return=%2Fwhoami`);

    const login = await agent.send('GET', `${tk.url}/login?return=%2Fwhoami`);
    assert.is(new URL(login.location!).searchParams.get('redirect_uri'), `${PUBLIC}/login/oidc/callback`);
    assert.equal(login.setCookies.map((line) => line.replace(/=[^;]+;/, '=…;')), ['vigil_login=…; Path=/ops/login; Max-Age=600; HttpOnly; SameSite=Lax; Secure']);
    const atProvider = await agent.open(login.location!, { login: 'alice', stopAt: (url) => url.startsWith(PUBLIC) });
    const publicCallback = new URL(atProvider.location!);
    assert.is(`${publicCallback.origin}${publicCallback.pathname}`, `${PUBLIC}/login/oidc/callback`);
    // The proxy passes the request on to Vigil, at its own address.
    const back = await agent.send('GET', `${tk.url}/login/oidc/callback${publicCallback.search}`);
    assert.is(back.status, 303, back.body);
    assert.is(back.location, `${PUBLIC}/whoami`);
    const session = back.setCookies.find((line) => line.startsWith('vigil_session='))!;
    assert.match(session, /^vigil_session=[A-Za-z0-9_-]{43}; Path=\/ops; HttpOnly; SameSite=Lax; Secure$/);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: [] });

    const out = await agent.send('POST', `${tk.url}/logout`, { form: {} });
    assert.equal(out.setCookies, ['vigil_session=; Path=/ops; Max-Age=0; HttpOnly; SameSite=Lax; Secure']);
    // The public host is one Vigil answers to (the proxy passes it on); another is refused as ever.
    const port = Number(new URL(tk.url).port);
    const viaProxy = await capture(port, { method: 'GET', path: '/ops/login/signed-out', headers: { host: 'vigil.example.test' } });
    assert.is(viaProxy.status, 200);
    const rebound = await capture(port, { method: 'GET', path: '/ops/login/signed-out', headers: { host: 'evil.example.test' } });
    assert.is(rebound.status, 421);
    assert.is(new URL(out.location!).searchParams.get('post_logout_redirect_uri'), `${PUBLIC}/login/signed-out`);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('without base-url, plain http to a host that is not loopback cannot sign in: 400 naming the fix', async () => {
  const provider = await startProvider();
  const tk = await startVigil(provider);
  try {
    const port = Number(new URL(tk.url).port);
    const reply = await capture(port, { method: 'GET', path: '/login', headers: { host: `192.0.2.10:${port}`, accept: 'text/html' } });
    assert.is(reply.status, 400);
    const body = reply.body.toString();
    assert.match(body, '<h1>Single sign-on needs https</h1>');
    assert.match(body, 'set oidc.base-url to the https URL it is opened at');
    assert.not.ok(reply.headerLines.some(([name]) => name.toLowerCase() === 'set-cookie'), 'no cookie');
    assert.is(provider.requestsTo('/auth'), 0);
    assert.ok(tk.logs().some((line) => line.includes('oidc.base-url is not set and the request came over plain http to a host other than loopback')));
    // A browser navigation there is still sent to /login (relative: on whatever host it used).
    const page = await capture(port, { method: 'GET', path: '/whoami', headers: { host: `192.0.2.10:${port}`, accept: 'text/html' } });
    assert.is(page.status, 302);
    assert.equal(page.headerLines.find(([name]) => name.toLowerCase() === 'location'), ['location', '/login?return=%2Fwhoami']);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('a return path too long for a cookie falls back to the dashboard instead of failing the sign-in', async () => {
  const provider = await startProvider();
  const tk = await startVigil(provider);
  try {
    const origin = new URL(tk.url).origin;
    const agent = new UserAgent();
    const login = await agent.send('GET', `${tk.url}/login?return=${encodeURIComponent(`/instances?x=${'é'.repeat(1500)}`)}`);
    assert.ok(login.setCookies[0]!.length < 3600, String(login.setCookies[0]!.length));
    const step = await agent.open(login.location!, { login: 'alice', stopAt: (url) => !url.includes('/login') && url.startsWith(origin) });
    assert.is(step.location, `${origin}/`);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('the return path is a path on this server, never another site, never the sign-in pages', async () => {
  const provider = await startProvider();
  const tk = await startVigil(provider);
  try {
    const origin = new URL(tk.url).origin;
    for (const [asked, expected] of [
      ['/#/journal', `${origin}/#/journal`],
      ['//evil.example/x', `${origin}/`],
      ['/\\evil.example', `${origin}/`],
      ['https://evil.example/', `${origin}/`],
      ['/login?return=/x', `${origin}/`],
      ['/logout', `${origin}/`],
      ['/instances?name=shop', `${origin}/instances?name=shop`],
    ] as const) {
      const agent = new UserAgent();
      const step = await agent.open(`${tk.url}/login?return=${encodeURIComponent(asked)}`, { login: 'alice', stopAt: (url) => !url.includes('/login') && url.startsWith(origin) });
      assert.is(step.location, expected, asked);
    }
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test.run();
