import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus, urlsOf } from '../notify/support.js';

const KEY = 'eb243592-faa2-4ba2-a551q-1afdf565c889';

test('notify-opsgenie: an alert per instance (alias <name>_<id>) with GenieKey auth, closed by alias on UP', async () => {
  const receiver = await Receiver.start();
  receiver.fallback = { status: 202, body: '{"result":"Request will be processed","took":0.1,"requestId":"x"}' };
  const tk = await notifyKernel(['notify-opsgenie'], {
    notify: { 'base-url': 'https://vigil.example' },
    'notify-opsgenie': { 'api-key': KEY, url: `${receiver.url}/v2/alerts`, tags: ['vigil', 'prod'], priority: 'P2' },
  });
  try {
    const id = await registerInstance(tk, HOSTILE);
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'OFFLINE');
    await setStatus(tk, id, 'UP');
    const [create, close] = await receiver.received(2);
    const alias = `${HOSTILE}_${id}`;
    const urls = urlsOf(tk, id);
    assert.is(create!.url, '/v2/alerts');
    assert.is(create!.headers.authorization, `GenieKey ${KEY}`);
    assert.equal(create!.json, {
      message: `${HOSTILE}/${id} is OFFLINE`.slice(0, 129) + (`${HOSTILE}/${id} is OFFLINE`.length > 130 ? '…' : ''),
      alias,
      description: `Instance ${HOSTILE} (${id}) went from UP to OFFLINE`,
      details: { instanceId: id, from: 'UP', to: 'OFFLINE', healthUrl: urls.healthUrl, managementUrl: urls.managementUrl, dashboard: `https://vigil.example/#/instances/${id}` },
      entity: HOSTILE,
      source: 'Vigil',
      tags: ['vigil', 'prod'],
      priority: 'P2',
    });
    assert.is(close!.url, `/v2/alerts/${encodeURIComponent(alias)}/close?identifierType=alias`);
    assert.is(close!.headers.authorization, `GenieKey ${KEY}`);
    assert.equal(close!.json, { source: 'Vigil', note: `${HOSTILE}/${id} is UP` });
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
