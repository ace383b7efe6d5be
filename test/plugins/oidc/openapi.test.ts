import { validate } from '@readme/openapi-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpMethod, PluginContext, VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { ADMIN, basic, securityConfig } from '../../hardening/support/full-kernel.js';
import { call } from '../../support/http.js';
import { CLIENT_ID, startProvider } from './support/provider.js';

type Document = { paths: Record<string, Record<string, unknown>>; components: { securitySchemes: Record<string, Record<string, unknown>> }; security: unknown[] };

test('the sign-in routes and the dashboard\'s session are in /openapi.json, with oidc\'s security schemes', async () => {
  const provider = await startProvider();
  let routes: readonly { method: HttpMethod; path: string }[] = [];
  const table = { name: 'route-table', configKey: null, setup() {}, start(ctx: PluginContext<unknown>) { routes = ctx.http.routes(); } } as VigilPlugin<never>;
  const tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'openapi', 'basic-auth', 'oidc', 'ui', table],
    config: { ...securityConfig(), 'context-path': '/admin', oidc: { issuer: provider.issuer, 'client-id': CLIENT_ID, 'accept-access-tokens': true } },
  });
  try {
    const reply = await call('GET', `${tk.url}/openapi.json`, { headers: { authorization: basic(ADMIN.username, ADMIN.password) } });
    assert.is(reply.status, 200);
    const document = reply.json as Document;
    const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
    assert.ok(result.valid, JSON.stringify(result));
    const routed = new Set(routes.map(({ method, path }) => `${method} ${(path.slice('/admin'.length) || '/').replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`));
    const documented = new Set(Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).filter((key) => key !== 'parameters').map((method) => `${method.toUpperCase()} ${path}`)));
    assert.equal([...routed].filter((entry) => !documented.has(entry)), [], 'every route is described');
    assert.equal([...documented].filter((entry) => !routed.has(entry)), [], 'nothing described that no route serves');
    for (const entry of ['GET /login', 'GET /login/oidc/callback', 'GET /login/signed-out', 'POST /logout', 'GET /ui/session']) assert.ok(documented.has(entry), entry);
    assert.equal(document.components.securitySchemes.oidc, {
      type: 'openIdConnect', openIdConnectUrl: `${provider.issuer}/.well-known/openid-configuration`,
      description: 'single sign-on: a browser session (cookie vigil_session) begun at /login',
    });
    assert.is(document.components.securitySchemes.oidcBearer!.bearerFormat, 'JWT');
    assert.equal(document.security, [{ basic: [] }, { bearer: [] }, { oidc: [] }, { oidcBearer: [] }]);
    assert.not.ok(tk.logs().some((line) => line.includes('missing from /openapi.json')));
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test.run();
