import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as yup from 'yup';
import { ProblemsError, VigilError } from '../../core/errors.js';
import type { PluginContext, VigilPlugin } from '../../core/plugin-api.js';
import { sameValue } from '../../core/reload.js';
import { startTestKernel } from '../../bin/testing.js';
import { call } from '../support/http.js';

const schema = yup.object({ level: yup.number().default(1), fixed: yup.string().default('a') }).exact().default({});
type Section = yup.InferType<typeof schema>;

/** A plugin that applies `level` and names `fixed` as needing a restart; it records what it saw. */
function tunable(seen: unknown[]): VigilPlugin<never> {
  return {
    name: 'tunable',
    configSchema: schema,
    setup(ctx: PluginContext<Section>) {
      ctx.http.route('GET', '/level', (_req, res) => ctx.http.sendJson(res, 200, ctx.config));
    },
    reload(ctx: PluginContext<Section>, config: Section) {
      seen.push({ before: ctx.config, after: config });
      if (config.level < 0) throw new Error('negative levels are not supported while running');
      return ctx.config.fixed === config.fixed ? [] : ['fixed'];
    },
  } as unknown as VigilPlugin<never>;
}

const rigid = { name: 'rigid', configSchema: schema, setup() {} } as unknown as VigilPlugin<never>;

test('a changed section goes to its plugin\'s reload; ctx.config is the new one afterwards', async () => {
  const seen: unknown[] = [];
  const tk = await startTestKernel({ plugins: [tunable(seen)], config: { tunable: { level: 1 } } });
  try {
    assert.equal(await tk.reload({ tunable: { level: 1 } }), { applied: [], restart: [], failed: [] }, 'nothing changed');
    assert.equal(seen, []);
    assert.equal(await tk.reload({ tunable: { fixed: 'a', level: 2 } }), { applied: ['tunable'], restart: [], failed: [] });
    assert.equal(seen, [{ before: { level: 1, fixed: 'a' }, after: { level: 2, fixed: 'a' } }]);
    assert.equal((await call('GET', `${tk.url}/level`)).json, { level: 2, fixed: 'a' });
    // Keys the plugin cannot apply are named; the section still counts as applied.
    assert.equal(await tk.reload({ tunable: { level: 2, fixed: 'b' } }), { applied: ['tunable'], restart: ['tunable.fixed'], failed: [] });
    // A refusing plugin keeps its running section.
    const refused = await tk.reload({ tunable: { level: -1 } });
    assert.equal(refused.failed, ['tunable: plugin "tunable" failed in reload: negative levels are not supported while running']);
    assert.equal((await call('GET', `${tk.url}/level`)).json, { level: 2, fixed: 'b' });
  } finally {
    await tk.stop();
  }
});

test('a plugin without reload and kernel keys such as the context path need a restart', async () => {
  const seen: unknown[] = [];
  const tk = await startTestKernel({ plugins: [rigid, tunable(seen)], config: { rigid: { level: 1 } } });
  try {
    const report = await tk.reload({ rigid: { level: 5 }, 'context-path': '/admin', 'event-store': { 'max-events-per-instance': 20 } });
    assert.equal(report.applied, []);
    assert.equal(report.restart, ['context-path', 'event-store', 'rigid (plugin "rigid" cannot apply changes while running)']);
  } finally {
    await tk.stop();
  }
});

test('log-level and metadata-keys-to-sanitize apply at once', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'], config: { 'log-level': 'info' } });
  try {
    const registration = { name: 'shop', healthUrl: 'http://127.0.0.1:9/health', metadata: { region: 'eu-1', password: 'p' } };
    const { id } = (await call('POST', `${tk.url}/instances`, { json: registration })).json as { id: string };
    const metadata = async () => ((await call('GET', `${tk.url}/instances/${id}`)).json as { registration: { metadata: unknown } }).registration.metadata;
    assert.equal(await metadata(), { region: 'eu-1', password: '******' });
    const report = await tk.reload({ 'log-level': 'debug', 'metadata-keys-to-sanitize': ['region'] });
    assert.equal(report, { applied: ['log-level', 'metadata-keys-to-sanitize'], restart: [], failed: [] });
    assert.equal(await metadata(), { region: '******', password: 'p' });
  } finally {
    await tk.stop();
  }
});

test('an invalid config is refused whole with every problem; a stopped kernel refuses to reload', async () => {
  const seen: unknown[] = [];
  const tk = await startTestKernel({ plugins: [tunable(seen)] });
  try {
    await tk.reload({ tunable: { level: 'high', typo: 1 }, port: -1 });
    assert.unreachable('reloaded');
  } catch (error) {
    assert.instance(error, ProblemsError);
    assert.equal((error as ProblemsError).problems.length, 3, (error as ProblemsError).problems.join('\n'));
  }
  assert.equal(seen, []);
  await tk.stop();
  try {
    await tk.reload({});
    assert.unreachable('reloaded a stopped kernel');
  } catch (error) {
    assert.is((error as VigilError).code, 'ERR_PHASE');
  }
});

test('sameValue compares validated config values deeply, whatever the key order', () => {
  assert.ok(sameValue({ a: [1, { b: 2 }], c: undefined }, { a: [1, { b: 2 }] }));
  assert.not.ok(sameValue({ a: [1, 2] }, { a: [2, 1] }));
  assert.not.ok(sameValue({ a: 1 }, [1]));
  assert.not.ok(sameValue({ a: { b: 1 } }, { a: { b: 1, c: 2 } }));
  assert.ok(sameValue(Number.NaN, Number.NaN));
});

test.run();
