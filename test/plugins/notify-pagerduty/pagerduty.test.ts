import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus, urlsOf } from '../notify/support.js';

const KEY = 'R0UTINGKEY0123456789abcdef012345';

test('notify-pagerduty: Events API v2, trigger on a failing status and resolve on UP, one dedup_key per instance', async () => {
  const receiver = await Receiver.start();
  receiver.fallback = { status: 202, body: '{"status":"success","message":"Event processed","dedup_key":"x"}' };
  const tk = await notifyKernel(['notify-pagerduty'], { 'context-path': '/admin', notify: { 'base-url': 'https://vigil.example/admin/' }, 'notify-pagerduty': { 'routing-key': KEY, url: `${receiver.url}/v2/enqueue`, 'rate-limit': 0 } });
  try {
    const id = await registerInstance(tk, HOSTILE);
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'DOWN');
    await setStatus(tk, id, 'UP');
    const [trigger, resolve] = await receiver.received(2);
    const event = tk.kernel.registry.eventsOf(id).find((e) => e.type === 'STATUS_CHANGED' && e.statusInfo.status === 'DOWN')!;
    const urls = urlsOf(tk, id);
    assert.is(trigger!.url, '/v2/enqueue');
    assert.equal(trigger!.json, {
      routing_key: KEY,
      event_action: 'trigger',
      dedup_key: `${HOSTILE}/${id}`,
      payload: {
        summary: `${HOSTILE}/${id} is DOWN`,
        source: '127.0.0.1:9',
        severity: 'critical',
        timestamp: event.timestamp,
        component: HOSTILE,
        class: 'instance status',
        custom_details: { instanceId: id, from: 'UP', to: 'DOWN', healthUrl: urls.healthUrl, managementUrl: urls.managementUrl, serviceUrl: urls.serviceUrl, reminder: 0 },
      },
      client: 'Vigil',
      client_url: `https://vigil.example/admin/#/instances/${id}`,
      links: [{ href: urls.healthUrl, text: 'Health endpoint' }],
    });
    assert.equal(resolve!.json, { routing_key: KEY, event_action: 'resolve', dedup_key: `${HOSTILE}/${id}` });
    assert.ok(!tk.logs().join('\n').includes(KEY));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test('notify-pagerduty: a storm triggers one self-preservation incident, the return resolves it; a group sends one event per instance', async () => {
  const receiver = await Receiver.start();
  receiver.fallback = { status: 202, body: '{}' };
  const tk = await notifyKernel(['notify-pagerduty'], {
    notify: { 'self-preservation-window': '200ms', 'group-window': '200ms' },
    'notify-pagerduty': { 'routing-key': KEY, url: `${receiver.url}/v2/enqueue`, 'rate-limit': 0 },
  });
  try {
    const ids: string[] = [];
    for (let n = 0; n < 12; n++) ids.push(await registerInstance(tk, 'shop'));
    await Promise.all(ids.map((id) => setStatus(tk, id, 'UP')));
    await Promise.all(ids.map((id) => setStatus(tk, id, 'OFFLINE')));
    const [storm] = await receiver.received(1);
    const trigger = storm!.json as { event_action: string; dedup_key: string; payload: { summary: string; severity: string; custom_details: { lost: number } } };
    assert.equal([trigger.event_action, trigger.dedup_key, trigger.payload.severity, trigger.payload.custom_details.lost], ['trigger', 'vigil/self-preservation', 'critical', 12]);
    assert.is(trigger.payload.summary, "Vigil lost contact with 12 of 12 instances — suspect the network or Vigil's host");
    await Promise.all(ids.map((id) => setStatus(tk, id, 'UP')));
    const [, back] = await receiver.received(2);
    assert.equal(back!.json, { routing_key: KEY, event_action: 'resolve', dedup_key: 'vigil/self-preservation' });
    await Promise.all(ids.slice(0, 2).map((id) => setStatus(tk, id, 'DOWN')));
    const events = (await receiver.received(4)).slice(2).map((r) => r.json as { event_action: string; dedup_key: string });
    assert.equal(events.map((e) => `${e.event_action} ${e.dedup_key}`).sort(), ids.slice(0, 2).map((id) => `trigger shop/${id}`).sort());
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
