import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus } from '../notify/support.js';

test('notify-discord: content in markdown, no mention possible; a 429 is retried after its retry_after', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-discord'], {
    notify: { delivery: { 'backoff-base': '5s' } },
    'notify-discord': { 'webhook-url': `${receiver.url}/api/webhooks/1/x`, username: 'Vigil', 'avatar-url': 'https://vigil.example/icon.png', 'rate-limit': 0 },
  });
  receiver.answer({ status: 429, body: JSON.stringify({ message: 'You are being rate limited.', retry_after: 0.05, global: false }) });
  try {
    const evil = await registerInstance(tk, HOSTILE);
    await setStatus(tk, evil, 'DOWN');
    const [limited, sent] = await receiver.received(2);
    assert.is(limited!.status, 429);
    assert.is(sent!.status, 200);
    assert.is(sent!.url, '/api/webhooks/1/x');
    assert.equal(sent!.json, {
      content: `**\\<!channel\\> \\</b\\>\\<script\\>x\\</script\\> @\u200beveryone \\[a\\]\\(https://evil.example\\) \\*b\\*** (${evil}) is **DOWN**`,
      tts: false,
      username: 'Vigil',
      avatar_url: 'https://vigil.example/icon.png',
      allowed_mentions: { parse: [] },
    });
    assert.ok(tk.logs().some((line) => line.includes('attempt 2 in 50 ms, as the receiver asked')));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
