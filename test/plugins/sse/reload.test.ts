import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENT_LOG, type EventLog, type InstanceTransition, type LogReceiver, type NewEvent } from '../../../core/event-log.js';
import type { VigilPlugin } from '../../../core/plugin-api.js';
import { instanceIdOf } from '../../../core/store/instance-id.js';
import { applyEvent, emptyInstance } from '../../../core/store/instance.js';
import { MemoryEventLog } from '../../../core/store/memory-event-log.js';
import { startTestKernel } from '../../../bin/testing.js';
import type { InstanceEvent } from '../../../core/store/types.js';
import { deregister, openSse, register, registration, type SseClient } from './client.js';

/**
 * The memory log, playing a node that fell behind: what `appendElsewhere` records (another
 * node's writes) does not reach this node's registry until `reload` hands it the whole state.
 */
class LaggingLog implements EventLog {
  readonly #inner = new MemoryEventLog();
  #receiver: LogReceiver | undefined;
  #away = false;

  open(receiver: LogReceiver): Promise<void> {
    this.#receiver = receiver;
    return this.#inner.open({
      load: (...args) => receiver.load(...args),
      event: (event, change) => {
        if (!this.#away) receiver.event(event, change);
      },
      dropped: (id) => receiver.dropped(id),
    });
  }

  append(event: NewEvent, change: InstanceTransition): Promise<InstanceEvent> {
    return this.#inner.append(event, change);
  }

  appendElsewhere(event: NewEvent): Promise<InstanceEvent> {
    this.#away = true;
    const stored = this.#inner.append(event);
    this.#away = false;
    return stored;
  }

  reload(...args: Parameters<LogReceiver['load']>): void {
    this.#receiver!.load(...args);
  }

  drop(id: string): Promise<void> {
    return this.#inner.drop(id);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }
}

function laggingNode(log: LaggingLog): VigilPlugin<never> {
  return { name: 'lagging-node', configKey: null, create: (ctx) => ctx.services.provide(EVENT_LOG, log) } as VigilPlugin<never>;
}

test('events a reload brings reach the open streams at once, in order; live ones follow, each once', async () => {
  const log = new LaggingLog();
  const tk = await startTestKernel({ plugins: [laggingNode(log), 'rest-api', 'sse'], config: { 'log-level': 'error' } });
  const streams: SseClient[] = [];
  try {
    const shop = await register(tk, registration('shop', 3301));
    const all = await openSse(`${tk.url}/instances/events`);
    const apps = await openSse(`${tk.url}/applications`);
    streams.push(all, apps);
    const { registry: instances } = tk.kernel;

    // Another node registers `cart` and sees `shop` go DOWN; this node hears of it only by reloading.
    const cartRegistration = { name: 'cart', healthUrl: 'http://127.0.0.1:3302/actuator/health', managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} };
    const cart = instanceIdOf(cartRegistration.healthUrl);
    const timestamp = new Date().toISOString();
    const registered = await log.appendElsewhere({ type: 'REGISTERED', registration: cartRegistration, instance: cart, version: 0, timestamp });
    const down = await log.appendElsewhere({ type: 'STATUS_CHANGED', statusInfo: { status: 'DOWN', details: {} }, instance: shop, version: 1, timestamp });
    const held = instances.events();
    log.reload([applyEvent(instances.get(shop)!, down), applyEvent(emptyInstance(cart), registered)], [...held, registered, down], { first: held[0]!.seq, last: down.seq });

    await all.until(() => all.messages.length >= 2, 'the two events the reload brought');
    assert.equal(all.messages.map((message) => Number(message.id)), [registered.seq, down.seq]);
    assert.equal(all.messages.map((message) => message.json.type), ['REGISTERED', 'STATUS_CHANGED']);
    await apps.until(() => apps.messages.length >= 2, 'the applications they touched');
    assert.equal(apps.messages.map((message) => [Number(message.id), message.json.name, message.json.status]), [[registered.seq, 'cart', 'UNKNOWN'], [down.seq, 'shop', 'DOWN']]);

    await deregister(tk, shop);
    const left = instances.eventsOf(shop).at(-1)!;
    await all.until(() => all.messages.length >= 3, 'the live event after the reload');
    assert.equal(all.messages.map((message) => Number(message.id)), [registered.seq, down.seq, left.seq], 'nothing sent twice');
  } finally {
    for (const stream of streams) stream.close();
    await tk.stop();
  }
});

test.run();
