import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ProblemsError, VigilError } from '../../core/errors.js';
import { HttpError, defineToken, type PluginContext, type VigilPlugin } from '../../core/plugin-api.js';
import { startTestKernel } from '../../bin/testing.js';
import { call } from '../support/http.js';

const journal: string[] = [];

function recorder(name: string, extra: Partial<VigilPlugin<unknown>> = {}): VigilPlugin<never> {
  return {
    name,
    setup: () => void journal.push(`setup ${name}`),
    start: () => void journal.push(`start ${name}`),
    stop: () => void journal.push(`stop ${name}`),
    ...extra,
  } as VigilPlugin<never>;
}

test('lifecycle: setup and start in dependency order, stop in reverse; phases', async () => {
  journal.length = 0;
  const tk = await startTestKernel({ plugins: [recorder('b', { dependencies: ['a'] }), recorder('a'), recorder('c')] });
  assert.is(tk.kernel.phase, 'started');
  assert.match(tk.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  await tk.stop();
  assert.is(tk.kernel.phase, 'stopped');
  assert.equal(journal, ['setup a', 'setup b', 'setup c', 'start a', 'start b', 'start c', 'stop c', 'stop b', 'stop a']);
  assert.ok(tk.logs().some((line) => line.includes('listening on http://127.0.0.1:')), 'a listening line');
  await tk.stop(); // idempotent
});

test('a failing start stops the started plugins again and names the plugin', async () => {
  journal.length = 0;
  const failing = recorder('bad', { start: () => { throw new Error('no database'); } });
  try {
    await startTestKernel({ plugins: [recorder('a'), failing, recorder('c')] });
    assert.unreachable('started');
  } catch (error) {
    assert.instance(error, VigilError);
    assert.is((error as VigilError).code, 'ERR_PLUGIN_FAILED');
    assert.is((error as Error).message, 'plugin "bad" failed in start: no database');
  }
  assert.equal(journal, ['setup a', 'setup bad', 'setup c', 'start a', 'stop a']);
});

test('a setup that hangs times out naming the plugin', async () => {
  const hanging = { name: 'slow', setup: () => new Promise(() => undefined) } as VigilPlugin<never>;
  try {
    await startTestKernel({ plugins: [hanging], config: { 'plugin-timeout': '50ms' } });
    assert.unreachable('started');
  } catch (error) {
    assert.is((error as VigilError).code, 'ERR_PLUGIN_TIMEOUT');
    assert.is((error as Error).message, 'plugin "slow" setup did not finish within 50 ms');
  }
});

test('a stop that hangs is cut off and the kernel still stops', async () => {
  const stuck = { name: 'stuck', setup() {}, stop: () => new Promise(() => undefined) } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: [stuck], config: { 'plugin-timeout': '50ms' } });
  await tk.stop();
  assert.is(tk.kernel.phase, 'stopped');
  assert.ok(tk.logs().some((line) => line.includes('plugin "stuck" stop did not finish within')), 'the timeout is logged');
});

test('the same port twice fails to start with the reason', async () => {
  const first = await startTestKernel({ plugins: [] });
  const port = Number(new URL(first.url).port);
  try {
    await startTestKernel({ plugins: [], config: { port } });
    assert.unreachable('listened twice');
  } catch (error) {
    assert.is((error as NodeJS.ErrnoException).code, 'EADDRINUSE');
  } finally {
    await first.stop();
  }
});

function probe(): VigilPlugin<never> {
  return {
    name: 'probe',
    setup(ctx: PluginContext<unknown>) {
      ctx.http.hook('auth', (req, res) => {
        if (req.headers['x-deny']) ctx.http.sendError(req, res, 401, 'denied by hook');
      });
      ctx.http.hook('pre', (_req, res) => {
        res.setHeader('x-pre', 'ran');
      });
      ctx.http.route('GET', '/things/:id', (req, res) => ctx.http.sendJson(res, 200, { id: req.params.id, kind: 'json' }));
      ctx.http.route('GET', '/things/:id', (req, res) => ctx.http.sendJson(res, 200, { id: req.params.id, kind: 'stream' }), { accepts: 'text/event-stream' });
      ctx.http.route('GET', '/things/special', (_req, res) => ctx.http.sendJson(res, 200, { kind: 'special' }));
      ctx.http.route(['POST', 'PUT'], '/echo', async (req, res) => ctx.http.sendJson(res, 200, await ctx.http.readJson(req)));
      ctx.http.route('GET', '/teapot', () => { throw new HttpError(418, 'short and stout', { 'x-tea': 'earl grey' }); });
      ctx.http.route('GET', '/crash', () => { throw new Error('secret internals'); });
      ctx.http.route('GET', '/', (_req, res) => ctx.http.sendJson(res, 200, { root: true }));
      assert.throws(() => ctx.http.route('GET', 'no-slash', () => undefined), /must start with/);
      assert.throws(() => ctx.http.hook('later' as 'pre', () => undefined), /unknown hook stage/);
      ctx.services.provide(defineToken<string>('probe.value'), 'provided');
      assert.throws(() => ctx.services.provide(defineToken<string>('probe.value'), 'again'), /provided by both "probe" and "probe"/);
      assert.is(ctx.services.use(defineToken<string>('probe.value')), 'provided');
      assert.is(ctx.services.use(defineToken<string>('probe.none')), undefined);
      assert.is(ctx.settings.contextPath, '/admin');
      assert.is(ctx.settings.pluginIndex('probe'), 0);
      assert.is(ctx.settings.pluginIndex('other'), -1);
    },
    start(ctx: PluginContext<unknown>) {
      assert.throws(() => ctx.http.route('GET', '/late', () => undefined), /only be added during setup/);
      assert.match(ctx.settings.address() ?? '', /\/admin$/);
      assert.ok(ctx.http.routes().some((r) => r.method === 'GET' && r.path === '/admin/things/:id'));
    },
  } as VigilPlugin<never>;
}

test('http: context path, routing order, hooks, JSON errors for every failure', async () => {
  const tk = await startTestKernel({ plugins: [probe()], config: { 'context-path': 'admin/' } });
  try {
    const base = tk.url;
    assert.match(base, /\/admin$/);
    assert.equal((await call('GET', `${base}/things/7`)).json, { id: '7', kind: 'json' });
    assert.equal((await call('GET', `${base}/things/7`, { headers: { accept: 'text/event-stream' } })).json, { id: '7', kind: 'stream' });
    assert.equal((await call('GET', `${base}/things/7`, { headers: { accept: '*/*' } })).json, { id: '7', kind: 'json' });
    assert.equal((await call('GET', `${base}/things/7`, { headers: { accept: 'text/event-stream;q=0' } })).json, { id: '7', kind: 'json' });
    assert.equal((await call('GET', `${base}/things/special`)).json, { kind: 'special' }, 'static segments win over params');
    assert.equal((await call('GET', `${base}`)).json, { root: true });
    assert.is((await call('GET', `${base}/things/7`)).headers.get('x-pre'), 'ran');

    const missing = await call('GET', `${base.replace('/admin', '')}/things/7`);
    assert.is(missing.status, 404);
    const body = missing.json as Record<string, unknown>;
    assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
    assert.equal([body.status, body.error, body.message, body.path], [404, 'Not Found', 'no route for GET /things/7', '/things/7']);

    const denied = await call('GET', `${base}/things/7`, { headers: { 'x-deny': '1' } });
    assert.equal([denied.status, (denied.json as { message: string }).message], [401, 'denied by hook']);

    assert.equal((await call('POST', `${base}/echo`, { json: { a: [1] } })).json, { a: [1] });
    assert.equal((await call('PUT', `${base}/echo`, { body: '{"b":1}', headers: { 'content-type': 'application/vnd.x+json; charset=utf-8' } })).json, { b: 1 });
    const malformed = await call('POST', `${base}/echo`, { body: '{"b":', headers: { 'content-type': 'application/json' } });
    assert.is(malformed.status, 400);
    assert.match((malformed.json as { message: string }).message, 'not valid JSON');
    const empty = await call('POST', `${base}/echo`, { body: '', headers: { 'content-type': 'application/json' } });
    assert.equal([empty.status, (empty.json as { message: string }).message], [400, 'request body is empty; expected a JSON document']);
    const wrongType = await call('POST', `${base}/echo`, { body: '{}', headers: { 'content-type': 'text/plain' } });
    assert.equal([wrongType.status, (wrongType.json as { message: string }).message], [415, 'Content-Type must be application/json, got "text/plain"']);
    const big = await call('POST', `${base}/echo`, { json: { blob: 'x'.repeat(1024 * 1024) } });
    assert.equal([big.status, (big.json as { error: string }).error], [413, 'Payload Too Large']);

    const teapot = await call('GET', `${base}/teapot`);
    assert.equal([teapot.status, (teapot.json as { message: string }).message, teapot.headers.get('x-tea')], [418, 'short and stout', 'earl grey']);
    const crash = await call('GET', `${base}/crash`);
    assert.equal([crash.status, (crash.json as { message: string }).message], [500, 'internal server error']);
    assert.ok(tk.logs().some((line) => line.includes('GET /admin/crash: unhandled error')), 'the crash is logged');
  } finally {
    await tk.stop();
  }
});

test('a chunked body over the limit is cut off with 413 without a Content-Length', async () => {
  const tk = await startTestKernel({ plugins: [probe()], config: { 'context-path': '/admin' } });
  try {
    const url = new URL(`${tk.url}/echo`);
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 2 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    assert.is(status, 413);
  } finally {
    await tk.stop();
  }
});

test('contributions are collected in plugins: order, whatever the setup order', async () => {
  const token = defineToken<string>('test.order');
  let collected: string[] = [];
  const contributor = (name: string, deps: string[] = []) => ({
    name, dependencies: deps, setup: (ctx: PluginContext<unknown>) => ctx.services.contribute(token, name),
  }) as VigilPlugin<never>;
  const collector = { name: 'collector', setup() {}, start: (ctx: PluginContext<unknown>) => { collected = ctx.services.collect(token); } } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: [contributor('first', ['second']), contributor('second'), collector] });
  await tk.stop();
  assert.equal(collected, ['first', 'second']);
});

test('config problems surface before anything starts', async () => {
  try {
    await startTestKernel({ plugins: ['no-such-plugin-kit'] });
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ProblemsError);
    assert.match((error as ProblemsError).problems[0]!, 'no-such-plugin-kit');
  }
});

test.run();
