import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus } from '../notify/support.js';

const SECRET = `whsec_${randomBytes(32).toString('base64')}`;

test('a status change sends exactly one signed webhook: Vigil\'s body, Standard Webhooks headers, extra headers', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-webhook'], {
    'metadata-keys-to-sanitize': ['.*password$'],
    'notify-webhook': { url: `${receiver.url}/hooks/vigil?token=abc`, secret: SECRET, headers: { Authorization: 'Bearer hook-token-1234' } },
  });
  try {
    const id = await registerInstance(tk, 'orders', { metadata: { 'user.password': 'pw-secret-1', zone: 'eu' } });
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'DOWN', { db: { status: 'DOWN' } });
    const [request] = await receiver.received(1);
    const instance = tk.kernel.registry.get(id)!;
    const event = tk.kernel.registry.eventsOf(id).at(-1)!;
    assert.is(request!.method, 'POST');
    assert.is(request!.url, '/hooks/vigil?token=abc');
    assert.is(request!.headers['content-type'], 'application/json');
    assert.is(request!.headers.authorization, 'Bearer hook-token-1234');
    assert.is(request!.headers['webhook-id'], `${id}-${event.version}`);
    assert.match(String(request!.headers['user-agent']), /^Vigil\//);
    // The receiver's side of the scheme: the official library accepts the signature.
    const verified = new Webhook(SECRET).verify(request!.body, request!.headers as Record<string, string>);
    assert.equal(verified, request!.json);
    assert.equal(request!.json, {
      id: `${id}-${event.version}`,
      type: 'STATUS_CHANGED',
      event: { type: 'STATUS_CHANGED', version: event.version, timestamp: event.timestamp },
      instance: {
        id,
        name: 'orders',
        healthUrl: instance.registration!.healthUrl,
        managementUrl: instance.registration!.managementUrl,
        serviceUrl: instance.registration!.serviceUrl,
        source: 'http-api',
        metadata: { 'user.password': '******', zone: 'eu' },
        statusInfo: { status: 'DOWN', details: { db: { status: 'DOWN' } } },
      },
      from: 'UP',
      to: 'DOWN',
      reminder: false,
      reminderCount: 0,
      coalesced: 0,
    });
    // UNKNOWN → UP was ignored (the default ignore-changes): this was the only request.
    assert.is(receiver.requests.length, 1);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test('a hostile name travels as a JSON string, unsigned without a secret', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-webhook'], { 'notify-webhook': { url: `${receiver.url}/hook` } });
  try {
    const id = await registerInstance(tk, HOSTILE);
    await setStatus(tk, id, 'DOWN');
    const [request] = await receiver.received(1);
    assert.is((request!.json as { instance: { name: string } }).instance.name, HOSTILE);
    assert.is(request!.headers['webhook-signature'], undefined);
    assert.match(String(request!.headers['webhook-timestamp']), /^\d{10}$/);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
