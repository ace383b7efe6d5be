import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Receiver } from '../notify/receiver.js';
import { HOSTILE, notifyKernel, registerInstance, setStatus } from '../notify/support.js';

const TOKEN = '110201543:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw';

test('notify-telegram: a POST of sendMessage with HTML text (values escaped); flood control honoured; the token never logged', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-telegram'], {
    notify: { delivery: { 'backoff-base': '5s' } },
    'notify-telegram': { 'auth-token': TOKEN, 'chat-id': '-1001234', 'api-url': `${receiver.url}/`, 'message-thread-id': 7, 'rate-limit': 0 },
  });
  receiver.answer({ status: 429, body: JSON.stringify({ ok: false, error_code: 429, description: 'Too Many Requests: retry after 1', parameters: { retry_after: 1 } }) });
  try {
    const evil = await registerInstance(tk, HOSTILE);
    await setStatus(tk, evil, 'DOWN');
    const [, sent] = await receiver.received(2);
    assert.is(sent!.method, 'POST');
    assert.is(sent!.url, `/bot${TOKEN}/sendMessage`);
    assert.equal(sent!.json, {
      chat_id: '-1001234',
      text: `<strong>&lt;!channel&gt; &lt;/b&gt;&lt;script&gt;x&lt;/script&gt; @everyone [a](https://evil.example) *b*</strong>/${evil} is <strong>DOWN</strong>`,
      parse_mode: 'HTML',
      disable_notification: false,
      message_thread_id: 7,
    });
    assert.ok(tk.logs().some((line) => line.includes('attempt 2 in 1000 ms, as the receiver asked')));
    assert.ok(!tk.logs().join('\n').includes('AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw'));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
