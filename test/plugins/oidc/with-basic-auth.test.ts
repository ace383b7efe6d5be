import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpMethod, PluginContext, VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { createOidcPlugin } from '../../../plugins/oidc/index.js';
import { ADMIN, CLIENT, TOKEN, basic, discoveryConfig, securityConfig, selfContainedPlugins } from '../../hardening/support/full-kernel.js';
import { CLIENT_ID, startProvider, type TestProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { signIn, whoami, whoIs } from './support/vigil.js';

const CHALLENGE = 'Basic realm="Vigil", charset="UTF-8"';
/** A well-formed session id that is no session (one that ended, or never was). */
const STALE = 'S'.repeat(43);

let provider: TestProvider;

test.before(async () => {
  provider = await startProvider({ groups: { alice: ['ops'] } });
});

test.after(() => provider?.close());

const oidcSection = () => ({ issuer: provider.issuer, 'client-id': CLIENT_ID });

for (const order of ['basic-auth first', 'oidc first']) {
  test(`with basic-auth (${order}): browsers sign in through the provider, scripts keep Basic and tokens`, async () => {
    const oidc = createOidcPlugin() as VigilPlugin<never>;
    const tk = await startTestKernel({
      plugins: ['rest-api', ...(order === 'oidc first' ? [oidc, 'basic-auth'] : ['basic-auth', oidc]), whoami],
      config: { ...securityConfig(), oidc: oidcSection() },
    });
    try {
      const browser = new UserAgent();
      const page = await browser.send('GET', `${tk.url}/whoami`);
      assert.is(page.status, 302, 'a browser is sent to sign in, not shown the Basic dialog');
      assert.is(page.location, `${new URL(tk.url).origin}/login?return=%2Fwhoami`);
      await signIn(browser, tk.url, 'alice');
      assert.equal(await whoIs(browser, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops'] });

      const script = new UserAgent();
      assert.equal(await whoIs(script, tk.url, { authorization: basic(ADMIN.username, ADMIN.password) }), { name: 'admin', kind: 'user', via: 'basic', groups: [] });
      assert.equal(await whoIs(script, tk.url, { authorization: `Bearer ${TOKEN}` }), { name: 'ci', kind: 'token', via: 'token', groups: [] });
      assert.is(await whoIs(script, tk.url, { authorization: basic(CLIENT.username, CLIENT.password) }), 403, 'basic-auth\'s roles hold for its own users');

      const none = await script.send('GET', `${tk.url}/instances`, { headers: { accept: 'application/json' } });
      assert.is(none.status, 401);
      assert.is(JSON.parse(none.body).message, 'authentication required');
      assert.equal(none.setCookies, []);
      const noneHeaders = await fetch(`${tk.url}/instances`, { headers: { accept: 'application/json' } });
      assert.is(noneHeaders.headers.get('www-authenticate'), CHALLENGE, 'scripts get basic-auth\'s challenge');
      const stale = new UserAgent();
      stale.setCookie(tk.url, 'vigil_session', STALE);
      const ended = await stale.send('GET', `${tk.url}/instances`, { headers: { accept: 'application/json' } });
      assert.is(ended.status, 401);
      assert.is(JSON.parse(ended.body).message, 'session expired or signed out; sign in again at /login');
      assert.equal(ended.setCookies, ['vigil_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
      // No Basic challenge for a browser whose session ended: it would open a password dialog over the dashboard.
      const endedHeaders = await fetch(`${tk.url}/instances`, { headers: { accept: 'application/json', cookie: `vigil_session=${STALE}` } });
      assert.is(endedHeaders.status, 401);
      assert.is(endedHeaders.headers.get('www-authenticate'), null);
      // Nor for the dashboard's own requests after the cookie is gone (signed out in another tab).
      const ownPage = await fetch(`${tk.url}/instances`, { headers: { accept: 'application/json', 'sec-fetch-site': 'same-origin' } });
      assert.is(ownPage.status, 401);
      assert.is(ownPage.headers.get('www-authenticate'), null);
      assert.is(((await ownPage.json()) as { message: string }).message, 'authentication required; sign in at /login');
      // A preflight is left to cors (not loaded here: basic-auth refuses it as ever).
      const preflight = await fetch(`${tk.url}/instances`, { method: 'OPTIONS', headers: { 'sec-fetch-site': 'same-origin' } });
      assert.is(preflight.headers.get('www-authenticate'), CHALLENGE);
    } finally {
      await tk.stop();
    }
  });
}

test('with every built-in plugin, basic-auth and oidc: every route refuses a request without a session or credentials; only the sign-in pages are open', async () => {
  let routes: readonly { method: HttpMethod; path: string }[] = [];
  const table = { name: 'route-table', configKey: null, setup() {}, start(ctx: PluginContext<unknown>) { routes = ctx.http.routes(); } } as VigilPlugin<never>;
  const tk = await startTestKernel({
    plugins: [...selfContainedPlugins(), 'oidc', table],
    config: { ...securityConfig(), ...discoveryConfig(), 'log-level': 'warn', oidc: oidcSection() },
  });
  try {
    const { id } = await tk.kernel.registry.register({ name: 'shop', healthUrl: 'http://127.0.0.1:1/health', managementUrl: '', serviceUrl: '', metadata: {}, source: 'test' });
    const origin = new URL(tk.url).origin;
    const signInPages = new Set(['GET /login', 'GET /login/oidc/callback', 'GET /login/signed-out', 'POST /logout']);
    const distinct = [...new Map(routes.map((route) => [`${route.method} ${route.path}`, route])).values()];
    assert.ok(distinct.length >= 40, `only ${distinct.length} routes`);
    assert.equal(distinct.filter((route) => signInPages.has(`${route.method} ${route.path}`)).length, 4);
    let requests = 0;
    for (const route of distinct) {
      if (signInPages.has(`${route.method} ${route.path}`)) continue;
      const path = route.path.replace(':id', id).replace(':name', 'shop').replace(/\*$/, 'env');
      for (const accept of ['application/json', 'text/event-stream', 'text/html']) {
        const label = `${route.method} ${path} (${accept})`;
        const navigation = (route.method === 'GET' || route.method === 'HEAD') && accept === 'text/html';
        for (const cookie of [undefined, STALE]) {
          const agent = new UserAgent();
          if (cookie) agent.setCookie(tk.url, 'vigil_session', cookie);
          const body: Record<string, string> = ['POST', 'PUT', 'PATCH'].includes(route.method) ? { 'content-type': 'application/json' } : {};
          const step = await agent.send(route.method, `${origin}${path}`, { headers: { accept, ...body } });
          requests += 1;
          if (navigation) {
            assert.is(step.status, 302, label);
            assert.ok(step.location!.startsWith(`${origin}/login`), label);
            continue;
          }
          assert.is(step.status, 401, `${label}${cookie ? ' with an ended session' : ''}: ${step.body}`);
          const challenge = agent.steps[0]!;
          if (route.method !== 'HEAD') assert.is(JSON.parse(challenge.body).message, cookie ? 'session expired or signed out; sign in again at /login' : 'authentication required', label);
        }
      }
    }
    assert.equal(tk.kernel.registry.list().map((instance) => instance.id), [id], 'nothing got through');
    assert.equal(tk.kernel.registry.events().filter((event) => event.type === 'DEREGISTERED' || event.type === 'REGISTRATION_UPDATED'), []);

    // The sign-in pages, without anything: open, and each does its one job.
    const agent = new UserAgent();
    assert.is((await agent.send('GET', `${tk.url}/login`)).status, 303);
    assert.is((await agent.send('GET', `${tk.url}/login/oidc/callback`)).status, 400);
    assert.is((await agent.send('GET', `${tk.url}/login/signed-out`)).status, 200);
    assert.is((await agent.send('POST', `${tk.url}/logout`, { form: {} })).status, 303);
    // With a session, the same routes serve.
    await signIn(agent, tk.url, 'alice');
    assert.is((await agent.send('GET', `${tk.url}/instances`, { headers: { accept: 'application/json' } })).status, 200);
    console.log(`  oidc sweep: ${distinct.length} routes, ${requests} requests refused or sent to sign in`);
  } finally {
    await tk.stop();
  }
});

test.run();
