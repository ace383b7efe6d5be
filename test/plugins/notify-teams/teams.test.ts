import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus, urlsOf } from '../notify/support.js';

const card = (body: unknown[]) => ({
  type: 'message',
  attachments: [{
    contentType: 'application/vnd.microsoft.card.adaptive',
    contentUrl: null,
    content: { $schema: 'http://adaptivecards.io/schemas/adaptive-card.json', type: 'AdaptiveCard', version: '1.4', body, msteams: { width: 'Full' } },
  }],
});

test('notify-teams: the Workflows Adaptive Card envelope for registrations and status changes; a hostile name cannot form a link or mention', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-teams'], { 'notify-teams': { 'webhook-url': `${receiver.url}/workflows/x`, 'rate-limit': 0 } });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const [registered, changed] = await receiver.received(2);
    const urls = urlsOf(tk, id);
    const facts = (status: string) => ({ type: 'FactSet', facts: [
      { title: 'Status', value: status }, { title: 'Service URL', value: urls.serviceUrl }, { title: 'Health URL', value: urls.healthUrl },
      { title: 'Management URL', value: urls.managementUrl }, { title: 'Source', value: 'http-api' },
    ] });
    assert.equal(registered!.json, card([
      { type: 'TextBlock', text: 'Registered', wrap: true, size: 'Large', weight: 'Bolder', color: 'Accent' },
      { type: 'TextBlock', text: 'orders', wrap: true, size: 'Medium', weight: 'Bolder' },
      { type: 'TextBlock', text: `orders with id ${id} has registered with Vigil`, wrap: true },
      facts('UNKNOWN'),
    ]));
    assert.equal(changed!.json, card([
      { type: 'TextBlock', text: 'Status Changed', wrap: true, size: 'Large', weight: 'Bolder', color: 'Attention' },
      { type: 'TextBlock', text: 'orders', wrap: true, size: 'Medium', weight: 'Bolder' },
      { type: 'TextBlock', text: `orders with id ${id} changed status from UNKNOWN to DOWN`, wrap: true },
      facts('DOWN'),
    ]));
    const evil = await registerInstance(tk, HOSTILE);
    const [, , hostile] = await receiver.received(3);
    const blocks = (hostile!.json as { attachments: [{ content: { body: { text?: string }[] } }] }).attachments[0].content.body;
    const shown = '<\u200b!channel> <\u200b/b><\u200bscript>x<\u200b/script> @\u200beveryone [a]\u200b(https://evil.example) *b*';
    assert.is(blocks[1]!.text, shown);
    assert.is(blocks[2]!.text, `${shown} with id ${evil} has registered with Vigil`);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
