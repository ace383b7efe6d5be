import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus } from '../notify/support.js';

test('notify-slack: Block Kit with a text fallback, legacy overrides when set, a hostile name escaped for mrkdwn', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-slack'], {
    'notify-slack': { 'webhook-url': `${receiver.url}/services/T0/B0/x`, username: 'Vigil', channel: '#ops', icon: ':rotating_light:', 'rate-limit': 0 },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const evil = await registerInstance(tk, HOSTILE);
    await setStatus(tk, evil, 'OFFLINE');
    const [first, second] = await receiver.received(2);
    assert.is(first!.url, '/services/T0/B0/x');
    assert.is(first!.headers['content-type'], 'application/json');
    const text = `*orders* (${id}) is *DOWN*`;
    assert.equal(first!.json, {
      username: 'Vigil', channel: '#ops', icon_emoji: ':rotating_light:',
      text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text } }],
    });
    const escaped = `*&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b** (${evil}) is *OFFLINE*`;
    assert.equal((second!.json as { text: string }).text, escaped);
    assert.ok(!second!.body.includes('<!channel>'));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
