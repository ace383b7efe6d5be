import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { PluginContext, VigilPlugin } from '../../core/plugin-api.js';
import { startTestKernel } from '../../bin/testing.js';
import { call } from '../support/http.js';

interface Seen {
  readonly method: string | undefined;
  readonly route: string | undefined;
  readonly status: number;
}

/** Routes of several shapes, a hook that refuses one path, and an observer that records every response. */
function observed(seen: Seen[], onClose: () => void): VigilPlugin<never> {
  return {
    name: 'observed',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.http.route('GET', '/things/:id', (_req, res) => ctx.http.sendJson(res, 200, {}));
      ctx.http.route('GET', '/things/special', (_req, res) => ctx.http.sendJson(res, 200, {}));
      ctx.http.route(['GET', 'POST'], '/files/*', (_req, res) => ctx.http.sendJson(res, 201, {}));
      ctx.http.route('GET', '/stream', (_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('a');
        setImmediate(() => res.end('b'));
      });
      ctx.http.hook('auth', (req, res) => {
        if (req.path.endsWith('/things/secret')) ctx.http.sendError(req, res, 401, 'no');
      });
      ctx.http.onResponse((req, res) => {
        seen.push({ method: req.method, route: req.route, status: res.statusCode });
        onClose();
      });
    },
  } as VigilPlugin<never>;
}

test('each response is observed once, labelled with the route pattern, never the raw path', async () => {
  const seen: Seen[] = [];
  let closed = 0;
  const waiters: (() => void)[] = [];
  const tk = await startTestKernel({ plugins: [observed(seen, () => { closed += 1; waiters.shift()?.(); })], config: { 'context-path': '/admin' } });
  const settled = async (count: number) => { while (closed < count) await new Promise<void>((resolve) => waiters.push(resolve)); };
  try {
    assert.is((await call('GET', `${tk.url}/things/42`)).status, 200);
    assert.is((await call('GET', `${tk.url}/things/special`)).status, 200);
    assert.is((await call('HEAD', `${tk.url}/things/7/`)).status, 200);
    assert.is((await call('POST', `${tk.url}/files/a/b/c.txt`)).status, 201);
    assert.is((await call('GET', `${tk.url}/stream`)).text, 'ab');
    // Refused by a hook before any route ran: still named by the route it was for.
    assert.is((await call('GET', `${tk.url}/things/secret`)).status, 401);
    assert.is((await call('DELETE', `${tk.url}/things/1`)).status, 404);
    assert.is((await call('GET', `${tk.url}/nowhere/at/all`)).status, 404);
    await settled(8);
    assert.equal(seen, [
      { method: 'GET', route: '/things/:id', status: 200 },
      { method: 'GET', route: '/things/special', status: 200 },
      { method: 'HEAD', route: '/things/:id', status: 200 },
      { method: 'POST', route: '/files/*', status: 201 },
      { method: 'GET', route: '/stream', status: 200 },
      { method: 'GET', route: '/things/:id', status: 401 },
      { method: 'DELETE', route: undefined, status: 404 },
      { method: 'GET', route: undefined, status: 404 },
    ]);
  } finally {
    await tk.stop();
  }
});

test('a failing observer is logged and the others still run', async () => {
  const seen: Seen[] = [];
  const thrower = {
    name: 'thrower',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.http.onResponse(() => {
        throw new Error('observer bug');
      });
    },
  } as VigilPlugin<never>;
  let resolve: () => void = () => undefined;
  const done = new Promise<void>((r) => { resolve = r; });
  const tk = await startTestKernel({ plugins: [thrower, observed(seen, () => resolve())] });
  try {
    assert.is((await call('GET', `${tk.url}/things/1`)).status, 200);
    await done;
    assert.equal(seen, [{ method: 'GET', route: '/things/:id', status: 200 }]);
    assert.ok(tk.logs().some((line) => line.includes('a response observer failed: observer bug')));
  } finally {
    await tk.stop();
  }
});

test.run();
