import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus } from '../notify/support.js';

test('notify-mattermost: an incoming-webhook body with markdown text, values escaped', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-mattermost'], {
    'notify-mattermost': { url: `${receiver.url}/hooks/abc`, channel: 'town-square', username: 'vigil', 'icon-url': 'https://vigil.example/i.png' },
  });
  try {
    const id = await registerInstance(tk, 'orders');
    await setStatus(tk, id, 'DOWN');
    const evil = await registerInstance(tk, HOSTILE);
    await setStatus(tk, evil, 'DOWN');
    const [plain, hostile] = await receiver.received(2);
    assert.is(plain!.url, '/hooks/abc');
    assert.equal(plain!.json, { text: `**orders** (${id}) is **DOWN**`, channel: 'town-square', username: 'vigil', icon_url: 'https://vigil.example/i.png' });
    assert.is((hostile!.json as { text: string }).text,
      `**\\<!channel\\> \\</b\\>\\<script\\>x\\</script\\> @\u200beveryone \\[a\\]\\(https://evil.example\\) \\*b\\*** (${evil}) is **DOWN**`);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
