import { validate } from '@readme/openapi-parser';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_PLUGINS } from '../../../config/defaults.js';
import { type HttpMethod, type PluginContext, type VigilPlugin } from '../../../core/plugin-api.js';
import { API_DESCRIPTION, ERROR_RESPONSE } from '../../../core/kits/services/index.js';
import { startTestKernel } from '../../../bin/testing.js';
import { ADMIN, basic, startFullKernel } from '../../hardening/support/full-kernel.js';
import { call } from '../../support/http.js';

type Document = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>>; components: Record<string, Record<string, unknown>>; security?: unknown[] };

/**
 * The router's table and the document, both as `METHOD /openapi/path` below the context path,
 * computed here independently of the plugin: `:name` is `{name}`, a trailing `*` is `{path}`.
 */
function compare(document: Document, routes: readonly { method: HttpMethod; path: string }[], contextPath: string): { missing: string[]; extra: string[] } {
  const routed = new Set(routes.map(({ method, path }) => {
    const below = path.slice(contextPath.length) || '/';
    return `${method} ${below.replace(/:([A-Za-z0-9_]+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`;
  }));
  const documented = new Set(Object.entries(document.paths).flatMap(([path, item]) => Object.keys(item).filter((key) => key !== 'parameters').map((method) => `${method.toUpperCase()} ${path}`)));
  return { missing: [...routed].filter((entry) => !documented.has(entry)).sort(), extra: [...documented].filter((entry) => !routed.has(entry)).sort() };
}

async function validated(document: unknown): Promise<void> {
  // The parser dereferences in place: give it a copy.
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
  assert.ok(result.valid, JSON.stringify(result));
  assert.equal(result.warnings, []);
  assert.is(result.specification, 'OpenAPI');
}

for (const contextPath of ['', '/admin']) {
  test(`with every built-in plugin (context path "${contextPath}"): a valid OpenAPI 3.1 document of exactly the router's routes`, async () => {
    const full = await startFullKernel({ 'context-path': contextPath });
    try {
      const reply = await call('GET', `${full.tk.url}/openapi.json`, { headers: { authorization: basic(ADMIN.username, ADMIN.password) } });
      assert.is(reply.status, 200);
      assert.is(reply.headers.get('content-type'), 'application/json');
      const document = reply.json as Document & { openapi: string; servers: { url: string }[] };
      assert.is(document.openapi, '3.1.0');
      assert.equal(document.servers, [{ url: contextPath || '/' }]);
      await validated(document);
      assert.equal(compare(document, full.routes, contextPath), { missing: [], extra: [] });
      // The parts the issue names: the error body, the stream forms, and auth.
      assert.ok(document.components.schemas!.Error, 'the error body');
      assert.ok(document.paths['/instances/events']!.get!.responses['200']!.content!['text/event-stream'], 'a stream form next to its JSON twin');
      assert.ok(document.paths['/instances/events']!.get!.responses['200']!.content!['application/json']);
      assert.equal(document.security, [{ basic: [] }, { bearer: [] }]);
      assert.equal(Object.keys(document.components.securitySchemes!).sort(), ['basic', 'bearer']);
      assert.not.ok(full.tk.logs().some((line) => line.includes('missing from /openapi.json')), 'no warning about undocumented routes');
    } finally {
      await full.tk.stop();
    }
  });
}

test('the default plugin list serves the document without authentication schemes', async () => {
  const tk = await startTestKernel({ plugins: [...DEFAULT_PLUGINS] });
  try {
    const document = (await call('GET', `${tk.url}/openapi.json`)).json as Document;
    await validated(document);
    assert.is(document.security, undefined);
    assert.ok(document.paths['/health/readiness'] && document.paths['/openapi.json'], 'the default list includes probes and openapi');
  } finally {
    await tk.stop();
  }
});

const undocumented = {
  name: 'undocumented',
  configKey: null,
  setup(ctx: PluginContext<unknown>) {
    ctx.http.route('GET', '/things/:id', (_req, res) => ctx.http.sendJson(res, 200, {}));
    ctx.services.contribute(API_DESCRIPTION, { paths: { '/gone': { get: { responses: { default: ERROR_RESPONSE } } } } });
  },
} as VigilPlugin<never>;

test('a route without a description, or a description without a route, is found (and warned about at start)', async () => {
  let routes: readonly { method: HttpMethod; path: string }[] = [];
  const table = { name: 'table', configKey: null, setup() {}, start(ctx: PluginContext<unknown>) { routes = ctx.http.routes(); } } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: ['openapi', undocumented, table] });
  try {
    const document = (await call('GET', `${tk.url}/openapi.json`)).json as Document;
    assert.equal(compare(document, routes, ''), { missing: ['GET /things/{id}'], extra: ['GET /gone'] });
    assert.ok(tk.logs().some((line) => line.includes('routes missing from /openapi.json (their plugin contributes no API_DESCRIPTION for them): GET /things/{id}')));
    assert.ok(tk.logs().some((line) => line.includes('operations in /openapi.json that no route serves: GET /gone')));
  } finally {
    await tk.stop();
  }
});

test('conflicting schemas and references to nothing stop start-up', async () => {
  const conflicting = (name: string, schema: unknown) => ({
    name,
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.services.contribute(API_DESCRIPTION, { schemas: { Thing: schema as Record<string, unknown> }, paths: { [`/${name}`]: { get: { responses: { 200: { $ref: '#/components/responses/Missing' } } } } } });
    },
  } as VigilPlugin<never>);
  try {
    await startTestKernel({ plugins: ['openapi', conflicting('one', { type: 'string' }), conflicting('two', { type: 'number' })] });
    assert.unreachable('started');
  } catch (error) {
    assert.is((error as Error).message, 'plugin "openapi" failed in start: the API description is inconsistent: schema "Thing" is defined twice, differently; $ref "#/components/responses/Missing" points at nothing');
  }
});

test.run();
