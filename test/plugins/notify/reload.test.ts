import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

type Body = { from: string; to: string; instance: { name: string } };
const change = (r: Received) => `${(r.json as Body).instance.name} ${(r.json as Body).from}→${(r.json as Body).to}`;
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

let first: Receiver;
let second: Receiver;
let tk: TestKernel | undefined;

test.before.each(async () => {
  first = await Receiver.start();
  second = await Receiver.start();
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await first.close();
  await second.close();
});

test('reload: a channel\'s new URL, secret and message rules apply to the next notification, without a restart', async () => {
  const config = (section: Record<string, unknown>) => ({ 'notify-webhook': section, 'notify-slack': { 'webhook-url': `${second.url}/slack/T0/B0/S3cret` } });
  tk = await notifyKernel(['notify-webhook', 'notify-slack'], config({ url: `${first.url}/hook` }));
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  await setStatus(tk, id, 'DOWN');
  assert.equal((await first.received(1)).map(change), ['orders UP→DOWN']);

  const report = await tk.reload(config({ url: `${second.url}/hook`, secret: SECRET, on: ['STATUS_CHANGED', 'DEREGISTERED'] }));
  assert.equal(report, { applied: ['notify-webhook'], restart: [], failed: [] });
  await setStatus(tk, id, 'UP');
  const [moved] = await second.received(1, (r) => r.url === '/hook');
  assert.is(change(moved!), 'orders DOWN→UP');
  assert.ok(moved!.headers['webhook-signature'], 'signed with the new secret');
  assert.is(first.requests.length, 1, 'nothing more went to the old URL');
  const channel = (await notificationsStatus(tk)).channels.find((c) => c.name === 'notify-webhook')!;
  assert.equal([channel.target, channel.on], [`http://127.0.0.1:${second.port}/******`, ['STATUS_CHANGED', 'DEREGISTERED']]);
  assert.is(channel.delivered, 2, 'the counters carry over');

  // Turned off: the other channel still hears of the next change, this one does not.
  assert.equal((await tk.reload(config({ url: `${second.url}/hook`, enabled: false }))).applied, ['notify-webhook']);
  await setStatus(tk, id, 'DOWN');
  await second.received(3, (r) => r.url.startsWith('/slack'));
  assert.equal(second.requests.filter((r) => r.url === '/hook').map(change), ['orders DOWN→UP']);
  assert.is((await notificationsStatus(tk)).channels.find((c) => c.name === 'notify-webhook')!.enabled, false);
  assert.not.ok(tk.logs().some((line) => line.includes(SECRET)), 'no secret in a line');
});

test('reload: notify\'s ignore-changes applies at once; a key it cannot change is named as needing a restart; an invalid section is refused and the running channel stays', async () => {
  tk = await notifyKernel(['notify-webhook'], { 'notify-webhook': { url: `${first.url}/hook` } });
  const id = await registerInstance(tk, 'orders');
  await setStatus(tk, id, 'UP');
  const report = await tk.reload({ 'notify-webhook': { url: `${first.url}/hook` }, notify: { 'ignore-changes': ['UNKNOWN:UP', 'UP:DOWN'], hold: '5s' } });
  assert.equal(report, { applied: ['notify'], restart: ['notify.hold'], failed: [] });
  await setStatus(tk, id, 'DOWN');
  await setStatus(tk, id, 'OUT_OF_SERVICE');
  assert.equal((await first.received(1)).map(change), ['orders DOWN→OUT_OF_SERVICE'], 'UP→DOWN ignored, and no hold applied');

  const refused = await tk.reload({ 'notify-webhook': { url: 'ftp://hooks.example.com/T0/S3cret' } }).then(() => 'applied', (error: Error) => error.message);
  assert.match(refused, /notify-webhook\.url: must be an absolute http:\/\/ or https:\/\/ URL/);
  assert.not.match(refused, /S3cret/);
  await setStatus(tk, id, 'UP');
  assert.equal((await first.received(2)).map(change), ['orders DOWN→OUT_OF_SERVICE', 'orders OUT_OF_SERVICE→UP'], 'still the running channel');
});

test.run();
