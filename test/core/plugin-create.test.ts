import { test } from 'uvu';
import * as assert from 'uvu/assert';
import * as yup from 'yup';
import { definePlugin, type PluginContext, type VigilPlugin } from '../../core/plugin-api.js';
import { checkPlugin, startTestKernel } from '../../bin/testing.js';
import { call } from '../support/http.js';

const schema = yup.object({ level: yup.number().default(1) }).exact().default({});
type Section = yup.InferType<typeof schema>;

/**
 * A plugin in the `create` form: its state (a counter, the contexts it saw) lives in what
 * `create` makes, and `journal` records each lifecycle call with the kernel it belongs to.
 */
function counter(journal: string[]): VigilPlugin<never> {
  return definePlugin<Section>({
    name: 'counter',
    configSchema: schema,
    create(ctx: PluginContext<Section>) {
      let hits = 0;
      let level = ctx.config.level;
      journal.push(`create level ${level}`);
      ctx.http.route('GET', '/hits', (_req, res) => ctx.http.sendJson(res, 200, { hits: ++hits, level }));
      return {
        start: () => void journal.push(`start level ${level}`),
        reload: (config) => {
          journal.push(`reload ${level} -> ${config.level}`);
          level = config.level;
        },
        stop: () => void journal.push(`stop after ${hits} hits`),
      };
    },
  }) as unknown as VigilPlugin<never>;
}

test('create: runs once per kernel at setup; the lifecycle it returns gets start, reload and stop; state stays per kernel', async () => {
  const journal: string[] = [];
  const plugin = counter(journal);
  const one = await startTestKernel({ plugins: [plugin], config: { counter: { level: 1 } } });
  const two = await startTestKernel({ plugins: [plugin], config: { counter: { level: 7 } } });
  try {
    assert.equal((await call('GET', `${one.url}/hits`)).json, { hits: 1, level: 1 });
    assert.equal((await call('GET', `${one.url}/hits`)).json, { hits: 2, level: 1 });
    assert.equal((await call('GET', `${two.url}/hits`)).json, { hits: 1, level: 7 }, 'the other kernel has its own state');
    assert.equal(await one.reload({ counter: { level: 3 } }), { applied: ['counter'], restart: [], failed: [] });
    assert.equal((await call('GET', `${one.url}/hits`)).json, { hits: 3, level: 3 });
  } finally {
    await one.stop();
    await two.stop();
  }
  assert.equal(journal, ['create level 1', 'start level 1', 'create level 7', 'start level 7', 'reload 1 -> 3', 'stop after 3 hits', 'stop after 1 hits']);
});

test('create: a lifecycle without reload makes a changed section need a restart; nothing returned is a plugin with no lifecycle', async () => {
  const quiet = definePlugin<Section>({ name: 'quiet', configSchema: schema, create() {} }) as unknown as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: [quiet], config: { quiet: { level: 1 } } });
  try {
    const report = await tk.reload({ quiet: { level: 2 } });
    assert.equal(report.restart, ['quiet (plugin "quiet" cannot apply changes while running)']);
  } finally {
    await tk.stop();
  }
});

test('a plugin has exactly one of create or setup, and with create its start, stop and reload come from what create returns', async () => {
  const both = { name: 'both', create() {}, setup() {} } as unknown as VigilPlugin<never>;
  const neither = { name: 'neither' } as unknown as VigilPlugin<never>;
  const mixed = { name: 'mixed', create() {}, start() {}, reload() {} } as unknown as VigilPlugin<never>;
  const notAFunction = { name: 'wrong', create: 'yes' } as unknown as VigilPlugin<never>;
  assert.equal(await checkPlugin(both), ['plugin "both": has both "create" and "setup"; give one of them (see the plugin contract)']);
  assert.equal(await checkPlugin(neither), ['plugin "neither": "create" must be a function (or, in the older form, "setup")']);
  assert.equal(await checkPlugin(mixed), [
    'plugin "mixed": "start" belongs in the lifecycle "create" returns, not on the plugin object',
    'plugin "mixed": "reload" belongs in the lifecycle "create" returns, not on the plugin object',
  ]);
  assert.equal(await checkPlugin(notAFunction), ['plugin "wrong": "create" must be a function']);
});

test.run();
