import type { ServerResponse } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpMethod, PluginContext, VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

const PASSWORD = 'sweep-Secret';
const METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const handled: string[] = [];

/**
 * Stands in for the stream and proxy plugins: their route shapes (Accept-conditional streams, a
 * trailing wildcard for every method) with handlers that record being reached, which must never happen.
 */
const streamsAndProxy = {
  name: 'streams-and-proxy',
  configKey: null,
  setup(ctx: PluginContext<unknown>) {
    const record = (label: string) => (_req: unknown, res: ServerResponse) => {
      handled.push(label);
      ctx.http.sendJson(res, 200, { reached: label });
    };
    for (const path of ['/instances/events', '/instances/:id', '/applications', '/applications/events', '/instances/:id/events']) {
      ctx.http.route('GET', path, record(`stream ${path}`), { accepts: 'text/event-stream' });
    }
    ctx.http.route(METHODS, '/instances/:id/actuator/*', record('proxy'));
    ctx.http.route(METHODS, '/instances/:id/actuator', record('proxy index'));
  },
} as VigilPlugin<never>;

let routes: readonly { method: HttpMethod; path: string }[] = [];
/** Listed last, it reads the router's full table once every other plugin has set up. */
const sweep = {
  name: 'route-sweep',
  configKey: null,
  setup() {},
  start(ctx: PluginContext<unknown>) {
    routes = ctx.http.routes();
  },
} as VigilPlugin<never>;

test('every registered route refuses a request without credentials, before its handler runs', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'basic-auth', streamsAndProxy, sweep],
    config: { 'context-path': '/admin', 'basic-auth': { users: [{ username: 'admin', password: PASSWORD }] } },
  });
  try {
    const { id } = await tk.kernel.registry.register({
      name: 'shop', healthUrl: 'http://127.0.0.1:1/health', managementUrl: '', serviceUrl: '', metadata: {}, source: 'test',
    });
    const origin = new URL(tk.url).origin;
    // rest-api's own routes and the stand-in's: a sweep that found nothing would prove nothing.
    assert.ok(routes.length >= 12, `only ${routes.length} routes registered`);
    assert.ok(routes.some((route) => route.method === 'POST' && route.path === '/admin/instances'));
    for (const route of routes) {
      const path = route.path.replace(/:[^/]+/g, id).replace(/\*$/, 'health');
      for (const accept of ['application/json', 'text/event-stream']) {
        const res = await call(route.method, `${origin}${path}`, {
          headers: { accept, 'content-type': 'application/json' },
          ...(route.method === 'GET' || route.method === 'HEAD' ? {} : { body: '{"name":"x","healthUrl":"http://127.0.0.1:2/health"}' }),
        });
        const label = `${route.method} ${path} (${accept})`;
        assert.is(res.status, 401, label);
        assert.is(res.headers.get('www-authenticate'), 'Basic realm="Vigil", charset="UTF-8"', label);
        if (route.method !== 'HEAD') assert.is((res.json as { status: number }).status, 401, label);
      }
    }
    assert.equal(handled, []);
    assert.equal(tk.kernel.registry.list().map((instance) => instance.id), [id]);
    assert.is(tk.kernel.registry.events().length, 1);
    // And the same table with credentials reaches the handlers (the sweep hit real routes).
    const ok = await call('GET', `${tk.url}/instances/${id}/actuator/health`, { headers: { authorization: `Basic ${Buffer.from(`admin:${PASSWORD}`).toString('base64')}` } });
    assert.equal(handled, ['proxy']);
    assert.is(ok.status, 200);
  } finally {
    await tk.stop();
  }
});

test.run();
