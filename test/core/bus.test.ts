import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EventBus } from '../../core/bus.js';

test('a failing handler is reported and neither stops the others nor its own subscription', async () => {
  const failures: string[] = [];
  const bus = new EventBus((name, error) => failures.push(`${name}: ${(error as Error).message}`));
  const seen: string[] = [];
  bus.on('instances.refresh-requested', () => {
    throw new Error('sync boom');
  });
  bus.on('instances.refresh-requested', async () => {
    throw new Error('async boom');
  });
  const off = bus.on('instances.refresh-requested', ({ reason }) => {
    seen.push(reason);
  });
  bus.emit('instances.refresh-requested', { reason: 'one' });
  bus.emit('instances.refresh-requested', { reason: 'two' });
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(seen, ['one', 'two']);
  assert.equal(failures.sort(), [
    'instances.refresh-requested: async boom', 'instances.refresh-requested: async boom',
    'instances.refresh-requested: sync boom', 'instances.refresh-requested: sync boom',
  ]);
  assert.is(bus.listenerCount('instances.refresh-requested'), 3);
  off();
  assert.is(bus.listenerCount('instances.refresh-requested'), 2);
  assert.is(bus.listenerCount('instance.changed'), 0);
  bus.emit('instance.changed', undefined as never);
});

test.run();
