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
    const event = tk.kernel.instances.eventsOf(id).find((e) => e.type === 'STATUS_CHANGED' && e.statusInfo.status === 'DOWN')!;
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

test.run();
