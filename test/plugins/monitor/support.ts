import { definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import { DETECTION_STRATEGY, type DetectionStrategy } from '../../../core/kits/services/index.js';
import type { InstanceEvent } from '../../../core/domain/index.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import type { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';

/** Fast cadence for tests: checks every 50 ms, results stale after 20 ms. */
export const FAST_MONITOR = {
  'status-interval': '50ms',
  'status-lifetime': '20ms',
  'info-interval': '50ms',
  'info-lifetime': '20ms',
  'default-timeout': '1s',
  'default-retries': 0,
};

/** A plugin that contributes the given strategies (in this order) under DETECTION_STRATEGY. */
export function strategies(name: string, list: readonly DetectionStrategy[]): VigilPlugin<never> {
  return definePlugin({
    name,
    configKey: null,
    setup(ctx) {
      for (const strategy of list) ctx.services.contribute(DETECTION_STRATEGY, strategy);
    },
  }) as VigilPlugin<never>;
}

/** Detects `health` and `info` under the managementUrl without any call (an index stand-in). */
export const staticStrategy: DetectionStrategy = {
  name: 'static',
  async detect(instance) {
    const base = instance.registration!.managementUrl!;
    return [{ id: 'health', url: `${base}/health` }, { id: 'info', url: `${base}/info` }];
  },
};

export async function monitorKernel(monitor: Record<string, unknown> = {}, extra: readonly (string | VigilPlugin<never>)[] = []): Promise<TestKernel> {
  return startTestKernel({ plugins: ['rest-api', 'monitor', ...extra], config: { monitor: { ...FAST_MONITOR, ...monitor } } });
}

/** Registers over HTTP; resolves with the id. */
export async function register(tk: TestKernel, body: Record<string, unknown>): Promise<string> {
  const reply = await call('POST', `${tk.url}/instances`, { json: body });
  if (reply.status !== 201) throw new Error(`registration failed: ${reply.status} ${reply.text}`);
  return (reply.json as { id: string }).id;
}

export function registerFake(tk: TestKernel, fake: FakeActuator, name: string, extra: Record<string, unknown> = {}): Promise<string> {
  return register(tk, fake.registration(name, extra));
}

/** Awaits a STATUS_CHANGED of `id` to `status` (after `afterVersion`, when given). */
export function statusEvent(tk: TestKernel, id: string, status: string, afterVersion = -1, timeoutMs?: number): Promise<InstanceEvent & { type: 'STATUS_CHANGED' }> {
  return tk.waitForEvent(
    (e) => e.instance === id && e.type === 'STATUS_CHANGED' && e.version > afterVersion && e.statusInfo.status === status,
    `STATUS_CHANGED ${status} of ${id}`,
    timeoutMs,
  ) as Promise<InstanceEvent & { type: 'STATUS_CHANGED' }>;
}

export function eventOf<T extends InstanceEvent['type']>(tk: TestKernel, id: string, type: T, where: (e: Extract<InstanceEvent, { type: T }>) => boolean = () => true, timeoutMs?: number): Promise<Extract<InstanceEvent, { type: T }>> {
  return tk.waitForEvent(
    (e) => e.instance === id && e.type === type && where(e as Extract<InstanceEvent, { type: T }>),
    `${type} of ${id}`,
    timeoutMs,
  ) as Promise<Extract<InstanceEvent, { type: T }>>;
}

/** A port nothing listens on: bind, read it, close. */
export async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as import('node:net').AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
