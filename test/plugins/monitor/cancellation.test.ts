import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Cancellation } from '../../../plugins/monitor/cancellation.js';

test('Cancellation: not cancelled until cancel(); cancel() calls each listener once, in order, however often it is called', () => {
  const cancellation = new Cancellation();
  const calls: string[] = [];
  cancellation.onCancel(() => calls.push('a'));
  cancellation.onCancel(() => calls.push('b'));
  assert.is(cancellation.cancelled, false);
  assert.is(cancellation.listenerCount, 2);
  cancellation.cancel();
  assert.is(cancellation.cancelled, true);
  assert.equal(calls, ['a', 'b']);
  cancellation.cancel();
  assert.equal(calls, ['a', 'b'], 'a second cancel() calls nobody');
  assert.is(cancellation.listenerCount, 0, 'nothing is held once cancelled');
});

test('Cancellation: an unsubscribed listener is not called and not held; unsubscribing twice takes out only its own', () => {
  const cancellation = new Cancellation();
  const calls: string[] = [];
  const same = () => calls.push('same');
  const offFirst = cancellation.onCancel(same);
  cancellation.onCancel(same);
  const offOther = cancellation.onCancel(() => calls.push('other'));
  offOther();
  offFirst();
  offFirst();
  assert.is(cancellation.listenerCount, 1, 'the second subscription of the same function stays');
  cancellation.cancel();
  assert.equal(calls, ['same']);
  offOther();
  offFirst();
});

test('Cancellation: onCancel after cancel calls the listener at once and returns an unsubscribe that does nothing', () => {
  const cancellation = new Cancellation();
  cancellation.cancel();
  let calls = 0;
  const off = cancellation.onCancel(() => {
    calls += 1;
  });
  assert.is(calls, 1);
  off();
  cancellation.cancel();
  assert.is(calls, 1);
  assert.is(cancellation.listenerCount, 0);
});

test('Cancellation: a listener unsubscribed by an earlier one while cancelling is not called; one subscribed then runs at once', () => {
  const cancellation = new Cancellation();
  const calls: string[] = [];
  let offLater = (): void => undefined;
  cancellation.onCancel(() => {
    calls.push('first');
    offLater();
    cancellation.onCancel(() => calls.push('during'));
  });
  offLater = cancellation.onCancel(() => calls.push('later'));
  cancellation.onCancel(() => calls.push('last'));
  cancellation.cancel();
  assert.equal(calls, ['first', 'during', 'last']);
});

test('Cancellation: a throwing listener does not stop the others; cancel() throws the first error after all ran', () => {
  const cancellation = new Cancellation();
  const calls: string[] = [];
  cancellation.onCancel(() => {
    throw new Error('one');
  });
  cancellation.onCancel(() => calls.push('b'));
  cancellation.onCancel(() => {
    throw new Error('two');
  });
  cancellation.onCancel(() => calls.push('d'));
  assert.throws(() => cancellation.cancel(), /one/);
  assert.equal(calls, ['b', 'd']);
  assert.is(cancellation.cancelled, true);
  cancellation.cancel();
  assert.equal(calls, ['b', 'd']);
});

test.run();
