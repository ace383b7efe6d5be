import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { Receiver, type Received } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

const ROUTING_KEY = 'R0UTINGKEY0123456789abcdef012345';
const WINDOW = '300ms';

type Summary = { type: 'SELF_PRESERVATION'; direction: string; count: number; total: number; remaining: number; text: string };
type Change = { type: string; from: string; to: string; instance: { id: string; name: string } };
type PagerDutyEvent = { event_action: string; dedup_key: string };
type AlertmanagerAlert = { labels: Record<string, string>; endsAt: string };

const onPath = (path: string) => (r: Received) => r.url.startsWith(path);
const bodies = (requests: readonly Received[]) => requests.map((r) => r.json as Summary);
/** What the webhook was told, one line per request: a summary's text or an instance's change. */
const told = (r: Received) => {
  const body = r.json as Summary | Change;
  return body.type === 'SELF_PRESERVATION' ? (body as Summary).text : `${(body as Change).instance.name} ${(body as Change).from}→${(body as Change).to}`;
};
const pagerDuty = (receiver: Receiver) => receiver.requests.filter(onPath('/pd')).map((r) => `${(r.json as PagerDutyEvent).event_action} ${(r.json as PagerDutyEvent).dedup_key}`);
const opsgenie = (receiver: Receiver) => receiver.requests.filter(onPath('/og')).map((r) => r.url.replace(/\?.*$/, ''));
/** Alertmanager posts as `alertname:instance_id firing|resolved`. */
const alertmanager = (receiver: Receiver) => receiver.requests.filter(onPath('/am')).map((r) => (r.json as AlertmanagerAlert[])
  .map((a) => `${a.labels.alertname}:${a.labels.instance_id ?? '-'} ${Date.parse(a.endsAt) <= Date.now() ? 'resolved' : 'firing'}`).join(', '));

let receiver: Receiver;
let tk: TestKernel | undefined;

test.before.each(async () => {
  receiver = await Receiver.start();
  receiver.fallback = { status: 202, body: '{}' };
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await receiver.close();
});

/** The webhook and the three incident channels, on the fake receiver's paths. */
function stormKernel(): Promise<TestKernel> {
  return notifyKernel(['notify-webhook', 'notify-pagerduty', 'notify-opsgenie', 'notify-alertmanager'], {
    notify: { 'self-preservation-window': WINDOW },
    'notify-webhook': { url: `${receiver.url}/webhook` },
    'notify-pagerduty': { 'routing-key': ROUTING_KEY, url: `${receiver.url}/pd`, 'rate-limit': 0 },
    'notify-opsgenie': { 'api-key': 'genie-key-0123', url: `${receiver.url}/og` },
    'notify-alertmanager': { url: `${receiver.url}/am` },
  });
}

/** Resolves once every channel finished `count` notifications (delivered, or sent nothing because there was nothing to send). */
async function finished(count: number): Promise<void> {
  await eventually(async () => (await notificationsStatus(tk!)).channels.every((c) => c.delivered === count && c.queued === 0), `every channel to finish ${count}`);
}

test('one real outage among 12 decoys: the decoys come back, the real one is reported on its own, the storm incident stays open until it recovers', async () => {
  tk = await stormKernel();
  const real = await registerInstance(tk, 'payments');
  const decoys: string[] = [];
  for (let n = 0; n < 12; n++) decoys.push(await registerInstance(tk, 'decoy'));
  await Promise.all([real, ...decoys].map((id) => setStatus(tk!, id, 'UP')));
  await Promise.all([real, ...decoys].map((id) => setStatus(tk!, id, 'OFFLINE')));
  const offline = tk.kernel.registry.get(real)!.version;
  await receiver.received(1, onPath('/webhook'));
  await finished(1);
  assert.equal(receiver.requests.filter(onPath('/webhook')).map(told), ["Vigil lost contact with 13 of 13 instances — suspect the network or Vigil's host"]);
  assert.equal(pagerDuty(receiver), ['trigger vigil/self-preservation']);
  assert.equal(opsgenie(receiver), ['/og']);
  assert.equal(alertmanager(receiver), ['VigilLostContact:- firing']);

  // Only the decoys come back: the real outage is told on its own, the storm incident stays open.
  await Promise.all(decoys.map((id) => setStatus(tk!, id, 'UP')));
  const webhook = await receiver.received(3, onPath('/webhook'));
  await finished(3);
  assert.equal(webhook.slice(1).map(told), ['Vigil regained contact with 12 of 13 instances; 1 instance is still failing', 'payments UP→OFFLINE']);
  assert.equal(bodies(webhook).map((b) => [b.direction, b.count, b.total, b.remaining]), [['lost', 13, 13, 13], ['regained', 12, 13, 1], [undefined, undefined, undefined, undefined]]);
  assert.is(webhook[2]!.headers['webhook-id'], `${real}-${offline}`, 'the change the storm stood for, with its own id');
  assert.equal(pagerDuty(receiver), ['trigger vigil/self-preservation', `trigger payments/${real}`]);
  assert.equal(opsgenie(receiver), ['/og', '/og']);
  assert.is((receiver.requests.filter(onPath('/og'))[1]!.json as { alias: string }).alias, `payments_${real}`);
  assert.equal(alertmanager(receiver), ['VigilLostContact:- firing', `VigilInstanceDown:${real} firing`]);

  // The real one recovers: its incident and the storm's are resolved.
  await setStatus(tk, real, 'UP');
  await receiver.received(5, onPath('/webhook'));
  await finished(5);
  const end = receiver.requests.filter(onPath('/webhook')).slice(3);
  assert.equal(end.map(told).sort(), ['The 13 instances Vigil lost contact with are all back or deregistered', 'payments OFFLINE→UP']);
  assert.equal(bodies(end).filter((b) => b.type === 'SELF_PRESERVATION').map((b) => [b.direction, b.count, b.remaining]), [['recovered', 13, 0]]);
  assert.equal(pagerDuty(receiver).slice(2).sort(), [`resolve payments/${real}`, 'resolve vigil/self-preservation']);
  assert.equal(opsgenie(receiver).slice(2).sort(), [`/og/${encodeURIComponent(`payments_${real}`)}/close`, '/og/vigil_self-preservation/close'].sort());
  assert.equal(alertmanager(receiver).slice(2).sort(), [`VigilInstanceDown:${real} resolved`, 'VigilLostContact:- resolved']);
});

/** PagerDuty alone, the storm window shortened. */
function pagerDutyKernel(): Promise<TestKernel> {
  return notifyKernel(['notify-pagerduty'], {
    notify: { 'self-preservation-window': WINDOW },
    'notify-pagerduty': { 'routing-key': ROUTING_KEY, url: `${receiver.url}/pd`, 'rate-limit': 0 },
  });
}

async function shop(count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) ids.push(await registerInstance(tk!, 'shop'));
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'UP')));
  await Promise.all(ids.map((id) => setStatus(tk!, id, 'OFFLINE')));
  await receiver.received(1, onPath('/pd'));
  return ids;
}

test('a storm whose instances come back a few at a time: those still failing are told on their own, and the storm is resolved when the last is back', async () => {
  tk = await pagerDutyKernel();
  const ids = await shop(12);
  const [early, late] = [ids.slice(0, 6), ids.slice(6)];
  // Six come back: too few for a "regained" summary, each is told on its own.
  await Promise.all(early.map((id) => setStatus(tk!, id, 'UP')));
  await receiver.received(1 + 6 + 6);
  const [storm, ...rest] = pagerDuty(receiver);
  assert.is(storm, 'trigger vigil/self-preservation');
  assert.equal(rest.sort(), [...early.map((id) => `resolve shop/${id}`), ...late.map((id) => `trigger shop/${id}`)].sort());
  // The rest come back: each is told, then the storm is over.
  await Promise.all(late.map((id) => setStatus(tk!, id, 'UP')));
  await receiver.received(1 + 6 + 6 + 6 + 1);
  const after = pagerDuty(receiver).slice(13);
  assert.equal(after.sort(), [...late.map((id) => `resolve shop/${id}`), 'resolve vigil/self-preservation'].sort());
  assert.is((await notificationsStatus(tk)).pipeline.summaries, 2, '"lost", then "all back"');
});

test('a storm most of whose instances are still lost after a few came back stays one storm: no message each, resolved by the "regained" summary', async () => {
  tk = await pagerDutyKernel();
  const ids = await shop(20);
  const [early, late] = [ids.slice(0, 6), ids.slice(6)];
  await Promise.all(early.map((id) => setStatus(tk!, id, 'UP')));
  await receiver.received(1 + 6);
  await eventually(() => tk!.logs().some((line) => line.includes('self-preservation: 14 of 20 instances still not back one window after the others: still a storm')), 'the follow-up to find a storm');
  await Promise.all(late.map((id) => setStatus(tk!, id, 'UP')));
  await receiver.received(1 + 6 + 1);
  await eventually(async () => (await notificationsStatus(tk!)).channels[0]!.queued === 0, 'PagerDuty to be done');
  const [storm, ...rest] = pagerDuty(receiver);
  assert.is(storm, 'trigger vigil/self-preservation');
  assert.equal(rest.sort(), [...early.map((id) => `resolve shop/${id}`), 'resolve vigil/self-preservation'].sort());
});

test.run();
