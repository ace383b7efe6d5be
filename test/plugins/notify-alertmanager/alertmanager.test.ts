import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver } from '../notify/receiver.js';
import { startAlertmanagerProcess } from './alertmanager-process.js';
import { SHARED_STATE } from '../../../core/plugin-api.js';
import { contextProbe, notifyKernel, registerInstance, setStatus, urlsOf } from '../notify/support.js';

const { test, path: alertmanagerBinary } = requireBinary('prometheus-alertmanager', 'apt-get install prometheus-alertmanager');
const startAlertmanager = () => startAlertmanagerProcess(alertmanagerBinary);

interface ApiAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  endsAt: string;
  generatorURL: string;
  status: { state: string };
}

test('notify-alertmanager: the real Alertmanager shows the alert firing, then gone once Vigil resolves it', async () => {
  const am = await startAlertmanager();
  const tk = await notifyKernel(['notify-alertmanager'], {
    notify: { 'base-url': 'https://vigil.example' },
    'notify-alertmanager': { url: am.url, labels: { team: 'payments' } },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'DOWN');
    const query = `${am.url}/api/v2/alerts?filter=${encodeURIComponent('alertname="VigilInstanceDown"')}`;
    const [alert] = await eventually(async () => {
      const alerts = (await (await fetch(query)).json()) as ApiAlert[];
      return alerts.length === 1 ? alerts : undefined;
    }, 'the alert in Alertmanager', 10_000);
    const event = tk.kernel.registry.eventsOf(id).at(-1)!;
    assert.equal(alert!.labels, { alertname: 'VigilInstanceDown', application: 'orders', instance_id: id, severity: 'critical', team: 'payments' });
    assert.equal(alert!.annotations, {
      summary: `orders (${id}) is DOWN`, description: `Instance orders (${id}) went from UP to DOWN`, status: 'DOWN', health_url: urlsOf(tk, id).healthUrl,
    });
    assert.is(alert!.status.state, 'active');
    assert.is(Date.parse(alert!.startsAt), Date.parse(event.timestamp));
    assert.is(alert!.generatorURL, `https://vigil.example/#/instances/${id}`);
    await setStatus(tk, id, 'UP');
    await eventually(async () => ((await (await fetch(query)).json()) as ApiAlert[]).length === 0, 'the alert to be resolved', 10_000);
  } finally {
    await tk.stop();
    await am.stop();
  }
});

test('notify-alertmanager: with on: [STATUS_CHANGED], deregistering a DOWN instance still resolves its alert in the real Alertmanager', async () => {
  const am = await startAlertmanager();
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: am.url, on: ['STATUS_CHANGED'] } });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const query = `${am.url}/api/v2/alerts?filter=${encodeURIComponent(`instance_id="${id}"`)}`;
    await eventually(async () => ((await (await fetch(query)).json()) as ApiAlert[]).length === 1, 'the alert in Alertmanager', 10_000);
    await tk.kernel.registry.deregister(id);
    await eventually(async () => ((await (await fetch(query)).json()) as ApiAlert[]).length === 0, 'the alert to be resolved', 10_000);
  } finally {
    await tk.stop();
    await am.stop();
  }
});

const exact = suite('notify-alertmanager payload');

exact('notify-alertmanager: a deregistration resolves the instance\'s alerts at once, whatever on says; nothing is sent for an instance without one', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: receiver.url, on: ['STATUS_CHANGED'] } });
  try {
    const [orders, billing] = [await registerInstance(tk, 'orders'), await registerInstance(tk, 'billing')];
    await setStatus(tk, orders, 'DOWN');
    const [firing] = await receiver.received(1);
    const [alert] = firing!.json as ApiAlert[];
    await tk.kernel.registry.deregister(billing);
    await tk.kernel.registry.deregister(orders);
    const [, resolved] = await receiver.received(2);
    const [sent] = resolved!.json as ApiAlert[];
    assert.is((resolved!.json as ApiAlert[]).length, 1);
    assert.equal([sent!.labels, sent!.startsAt], [alert!.labels, alert!.startsAt]);
    assert.ok(Date.parse(sent!.endsAt) <= Date.now(), sent!.endsAt);
    const status = (await (await fetch(`${tk.url}/notifications`)).json()) as { channels: { delivered: number; on: string[] }[] };
    assert.equal([status.channels[0]!.delivered, status.channels[0]!.on], [3, ['STATUS_CHANGED']]);
    assert.is(receiver.requests.length, 2);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

exact('notify-alertmanager: an alert whose instance left unheard (its deregistration silenced by a filter) is resolved by the next re-send', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: receiver.url, 'resend-interval': '1s' } });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const [firing] = await receiver.received(1);
    const [alert] = firing!.json as ApiAlert[];
    assert.is((await fetch(`${tk.url}/notifications/filters?instanceId=${id}`, { method: 'POST' })).status, 200);
    await tk.kernel.registry.deregister(id);
    await eventually(async () => ((await (await fetch(`${tk.url}/notifications`)).json()) as { pipeline: { filtered: number } }).pipeline.filtered === 1, 'the deregistration to be filtered');
    // A firing alert is sent with endsAt ahead, a resolved one with endsAt = its resolution.
    const [resolved] = await receiver.received(1, (r) => (r.json as ApiAlert[]).some((a) => Date.parse(a.endsAt) <= Date.now()));
    const [sent] = resolved!.json as ApiAlert[];
    assert.equal([sent!.labels, sent!.startsAt], [alert!.labels, alert!.startsAt]);
    assert.ok(Date.parse(sent!.endsAt) <= Date.now());
    assert.ok(tk.logs().some((line) => line.includes(`resolved 1 alert of instances no longer registered: ${id}`)), tk.logs().join('\n'));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

exact('notify-alertmanager: the exact POST; firing alerts re-sent with endsAt ahead, resolved ones with endsAt = resolution, then forgotten', async () => {
  const receiver = await Receiver.start();
  const probe = contextProbe();
  const tk = await notifyKernel(['notify-alertmanager', probe.plugin], {
    'notify-alertmanager': { url: `${receiver.url}/am/`, 'resend-interval': '1s', 'resolved-retention': '1500ms' },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const [first] = await receiver.received(1);
    assert.is(first!.url, '/am/api/v2/alerts');
    const [sent] = first!.json as ApiAlert[];
    const event = tk.kernel.registry.eventsOf(id).at(-1)!;
    assert.equal(Object.keys(sent!), ['labels', 'annotations', 'startsAt', 'endsAt', 'generatorURL']);
    assert.equal(sent!.labels, { alertname: 'VigilInstanceDown', application: 'orders', instance_id: id, severity: 'critical' });
    assert.is(sent!.startsAt, event.timestamp);
    assert.ok(Date.parse(sent!.endsAt) - Date.parse(event.timestamp) >= 3500, 'ends four resend intervals ahead');
    assert.is(sent!.generatorURL, `${tk.url}/#/instances/${id}`);
    // The periodic re-send: the same alert, a later endsAt.
    const [, resent] = await receiver.received(2);
    const [again] = resent!.json as ApiAlert[];
    assert.equal(again!.labels, sent!.labels);
    assert.is(again!.startsAt, sent!.startsAt);
    assert.ok(Date.parse(again!.endsAt) > Date.parse(sent!.endsAt));
    // OUT_OF_SERVICE changes the severity label: the old alert is resolved, a new one fires.
    await setStatus(tk, id, 'OUT_OF_SERVICE');
    const changed = await receiver.received(1, (r) => (r.json as ApiAlert[]).some((a) => a.labels.severity === 'warning'));
    const pair = changed[0]!.json as ApiAlert[];
    assert.equal(pair.map((a) => a.labels.severity), ['critical', 'warning']);
    assert.ok(Date.parse(pair[0]!.endsAt) <= Date.now());
    await setStatus(tk, id, 'UP');
    const allResolved = (r: { json: unknown }) => (r.json as ApiAlert[]).every((a) => Date.parse(a.endsAt) <= Date.now());
    const [resolved] = await receiver.received(1, (r) => allResolved(r) && (r.json as ApiAlert[]).some((a) => a.labels.severity === 'warning'));
    assert.equal((resolved!.json as ApiAlert[]).map((a) => a.labels.severity), ['warning']);
    // Re-sent as resolved while kept (both), then forgotten after resolved-retention.
    await receiver.received(1, (r) => allResolved(r) && (r.json as ApiAlert[]).length === 2);
    const kept = probe.ctx().services.use(SHARED_STATE)!.map('notify-alertmanager.alerts');
    await eventually(async () => (await kept.entries()).length === 0, 'the resolved alerts to be forgotten', 5000);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
exact.run();
