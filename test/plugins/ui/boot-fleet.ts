import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { FakeBoot } from '../../support/fake-boot/index.js';
import { register } from './browser-support.js';

export interface BootFleet {
  readonly tk: TestKernel;
  /** Two instances of `billing` (metadata group `payments`), every endpoint a Boot 3 service can expose. */
  readonly billing: readonly [FakeBoot, FakeBoot];
  /** One instance of `shop` with health, info and loggers only. */
  readonly shop: FakeActuator;
  readonly ids: { readonly billing: readonly [string, string]; readonly shop: string };
  stop(): Promise<void>;
}

/** The daemon with the default plugins and a small fleet of fake Spring Boot 3 instances, endpoints detected. */
export async function startBootFleet(): Promise<BootFleet> {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'ui'],
    config: { 'log-level': 'warn', monitor: { 'status-interval': '200ms', 'status-lifetime': 0 } },
  });
  const billing = [await FakeBoot.start({ logLines: 3000 }), await FakeBoot.start()] as const;
  const shop = await FakeActuator.start({ links: ['health', 'info', 'loggers'] });
  shop.on('GET', '/loggers', { json: { levels: ['OFF', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE'], loggers: { ROOT: { configuredLevel: 'INFO', effectiveLevel: 'INFO' } } } });
  const ids = {
    billing: [
      await register(tk, billing[0].registration('billing', { metadata: { group: 'payments' } })),
      await register(tk, billing[1].registration('billing', { metadata: { group: 'payments' } })),
    ] as const,
    shop: await register(tk, shop.registration('shop')),
  };
  await Promise.all([...ids.billing, ids.shop].map((id) => tk.waitForEvent((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED', `${id} endpoints`, 10_000)));
  return {
    tk, billing, shop, ids,
    async stop() {
      await tk.stop();
      await Promise.all([...billing.map((fake) => fake.close()), shop.close()]);
    },
  };
}
