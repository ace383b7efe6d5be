import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { READINESS, type PluginContext, type ReadinessCheck, type VigilPlugin } from '../../../core/plugin-api.js';
import { startTestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

/** Stands in for cluster-redis: not ready while its "connection" is down; a second check throws. */
function redisLike(state: { reachable: boolean; throwing: boolean }): VigilPlugin<never> {
  return {
    name: 'redis-like',
    configKey: null,
    setup(ctx: PluginContext<unknown>) {
      ctx.services.contribute(READINESS, { name: 'redis', check: () => (state.reachable ? { ready: true } : { ready: false, reason: 'Redis cannot be reached' }) });
      ctx.services.contribute(READINESS, {
        name: 'feed',
        check: () => {
          if (state.throwing) throw new Error('feed state unknown');
          return { ready: true };
        },
      });
    },
  } as VigilPlugin<never>;
}

test('liveness is UP; readiness is UP only while every check is, each check a component', async () => {
  const state = { reachable: true, throwing: false };
  const tk = await startTestKernel({ plugins: ['probes', redisLike(state)], config: { 'context-path': '/admin' } });
  try {
    const live = await call('GET', `${tk.url}/health/liveness`);
    assert.is(live.status, 200);
    assert.equal(live.json, { status: 'UP' });
    assert.is(live.headers.get('cache-control'), 'no-store');
    let ready = await call('GET', `${tk.url}/health/readiness`);
    assert.is(ready.status, 200);
    assert.equal(ready.json, { status: 'UP', components: { kernel: { status: 'UP' }, redis: { status: 'UP' }, feed: { status: 'UP' } } });
    state.reachable = false;
    state.throwing = true;
    ready = await call('GET', `${tk.url}/health/readiness`);
    assert.is(ready.status, 503);
    assert.equal(ready.json, {
      status: 'OUT_OF_SERVICE',
      components: {
        kernel: { status: 'UP' },
        redis: { status: 'OUT_OF_SERVICE', details: { reason: 'Redis cannot be reached' } },
        feed: { status: 'OUT_OF_SERVICE', details: { reason: 'the check failed: feed state unknown' } },
      },
    });
    assert.is((await call('HEAD', `${tk.url}/health/readiness`)).status, 503);
    assert.is((await call('GET', `${tk.url}/health/liveness`)).status, 200, 'alive all the same');
  } finally {
    await tk.stop();
  }
});

test('not ready while starting: a probe during a slow start gets 503 naming the phase', async () => {
  let during: { status: number; json: unknown } | undefined;
  const slow = {
    name: 'slow-start',
    configKey: null,
    setup() {},
    async start(ctx: PluginContext<unknown>) {
      // The server listens from before start; this plugin's start is not over yet.
      during = await call('GET', `${ctx.settings.address()!}/health/readiness`);
    },
  } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: ['probes', slow] });
  try {
    assert.is(during!.status, 503);
    assert.equal(during!.json, { status: 'OUT_OF_SERVICE', components: { kernel: { status: 'OUT_OF_SERVICE', details: { reason: 'the kernel is starting' } } } });
    assert.is((await call('GET', `${tk.url}/health/readiness`)).status, 200);
  } finally {
    await tk.stop();
  }
});

test('not ready while stopping: the kernel\'s check says so as soon as the stop begins', async () => {
  let checks: ReadinessCheck[] = [];
  let seen: unknown;
  const watcher = {
    name: 'watcher',
    configKey: null,
    setup() {},
    start(ctx: PluginContext<unknown>) {
      checks = ctx.services.collect(READINESS);
    },
    stop() {
      seen = checks.map((check) => [check.name, check.check()]);
    },
  } as VigilPlugin<never>;
  const tk = await startTestKernel({ plugins: ['probes', watcher] });
  assert.equal(checks.map((check) => [check.name, check.check()]), [['kernel', { ready: true }]]);
  await tk.stop();
  assert.equal(seen, [['kernel', { ready: false, reason: 'the kernel is stopping' }]]);
  assert.equal(checks[0]!.check(), { ready: false, reason: 'the kernel is stopped' });
});

test.run();
