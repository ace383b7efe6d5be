import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { changeInfoCommand, definePlugin, type VigilPlugin } from '../../../core/plugin-api.js';
import { openSse, register, registration, type SseClient } from './client.js';

/**
 * A plugin that records a second event from inside the first one's `instance.changed` handler.
 * Loaded before `sse`, its handler runs first, so the hub hears of the second event before the first.
 */
const echo: VigilPlugin<never> = definePlugin<never>({
  name: 'echo-info',
  configKey: null,
  setup(ctx) {
    ctx.bus.on('instance.changed', ({ event }) => {
      if (event.type === 'REGISTERED') void ctx.registry.apply(event.instance, changeInfoCommand({ echoed: true }));
    });
  },
});

const ids = (client: SseClient) => client.messages.map((message) => Number(message.id));

test('an event recorded inside another event\'s handler reaches every stream in order, neither lost nor doubled', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', echo, 'sse'], config: { 'log-level': 'error' } });
  const streams: SseClient[] = [];
  try {
    const all = await openSse(`${tk.url}/instances/events`);
    const apps = await openSse(`${tk.url}/applications`);
    streams.push(all, apps);
    const id = await register(tk, registration('shop', 3101));
    const one = await openSse(`${tk.url}/instances/${id}/events`, { 'last-event-id': '0' });
    streams.push(one);
    await all.until(() => all.messages.length >= 2, 'both events');
    await apps.until(() => apps.messages.length >= 2, 'both snapshots');
    await one.until(() => one.messages.length >= 2, 'both events replayed');
    const [registered, info] = tk.kernel.registry.eventsOf(id);
    assert.equal([registered!.type, info!.type], ['REGISTERED', 'INFO_CHANGED']);
    assert.equal(ids(all), [registered!.seq, info!.seq]);
    assert.equal(all.messages.map((message) => message.json.type), ['REGISTERED', 'INFO_CHANGED']);
    assert.equal(ids(apps), [registered!.seq, info!.seq]);
    assert.equal(ids(one), [registered!.seq, info!.seq]);
    // The snapshot sent for the first event is the application as it is when it goes out.
    assert.equal(apps.messages.map((message) => message.json.instances[0].info), [{ echoed: true }, { echoed: true }]);
  } finally {
    for (const stream of streams) stream.close();
    await tk.stop();
  }
});

test('clients reconnecting while events are being recorded get each one exactly once, in order', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api', 'sse'], config: { 'log-level': 'error' } });
  const clients: { from: number; client: SseClient }[] = [];
  let writing = true;
  let written = 0;
  // One event per turn of the event loop, interleaved with the clients' requests and replays.
  const writer = new Promise<void>((resolve) => {
    const step = async () => {
      if (!writing) return resolve();
      await tk.kernel.registry.register({ name: `app-${written % 7}`, healthUrl: `http://127.0.0.1:3200/health/${written}`, managementUrl: null, serviceUrl: null, source: 'http-api', metadata: {} });
      written++;
      setImmediate(() => void step());
    };
    step();
  });
  try {
    for (let index = 0; index < 12; index++) {
      // Resume a little behind the newest event, so each client gets a replay and then live events.
      // Not before the first event of this run: an id the registry never issued replays everything.
      const before = (tk.kernel.registry.events()[0]?.seq ?? tk.kernel.registry.lastSeq + 1) - 1;
      const from = Math.max(before, tk.kernel.registry.lastSeq - (index % 4) * 5);
      clients.push({ from, client: await openSse(`${tk.url}/instances/events`, { 'last-event-id': String(from) }) });
    }
    writing = false;
    await writer;
    const last = tk.kernel.registry.lastSeq;
    for (const { from, client } of clients) {
      await client.until(() => Number(client.messages.at(-1)?.id) === last, `events up to ${last}`);
      const expected = Array.from({ length: last - from }, (_, offset) => from + 1 + offset);
      assert.equal(ids(client), expected, `resumed after ${from}`);
    }
    assert.ok(clients.some(({ from }) => from > (tk.kernel.registry.events()[0]?.seq ?? 0)) && written > clients.length);
  } finally {
    writing = false;
    await writer;
    for (const { client } of clients) client.close();
    await tk.stop();
  }
});

test.run();
