import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../../bin/logger.js';
import type { LogFormat } from '../../config/kernel-schema.js';

/** A root logger writing into memory; `lines()` waits for winston to hand the records over. */
function memoryLogger(format: LogFormat) {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const log = createLogger({ level: 'debug', format, stream });
  return {
    log,
    lines: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return text.split('\n').filter((line) => line !== '');
    },
  };
}

test('text log: control characters in a message or a value are escaped, so one record is one line', async () => {
  const { log, lines } = memoryLogger('text');
  log.child('monitor').info('status of a1 is DOWN\r\nBCC: victim@example.com', { reason: 'first\nsecond\u2028third\u001b[31mred\u0000' });
  const [line, ...rest] = await lines();
  assert.equal(rest, [], 'one line');
  assert.match(line!, /\[monitor\] status of a1 is DOWN\\r\\nBCC: victim@example\.com reason=first\\nsecond\\u2028third\\u001b\[31mred\\u0000$/);
});

test('every URL in every log line has its password masked, in the message and in values, text and JSON', async () => {
  const secrets = ['PW1', 'PW2', 'PW3', 'PW4', 'PW5', 'PW6', 'PW7'];
  const message = 'skipped orders at http://user:PW1@10.2.0.9:8080: "http://user:PW2@10.2.0.9:bad" is not a URI; also http:user:PW3@host/x and'
    + ' redis://:PW4@cache:6379/0, jdbc:postgresql://app:PW5@db/orders?ssl=true';
  for (const format of ['text', 'json'] as const) {
    const { log, lines } = memoryLogger(format);
    log.warn(message, { url: 'https://ops:PW6@vigil.example/x', nested: { target: 'http://a:PW7@b/' }, mail: 'ops@example.com' });
    const [line] = await lines();
    for (const secret of secrets) assert.not.ok(line!.includes(secret), `${format}: ${secret} in ${line}`);
    assert.ok(line!.includes('http://user:******@10.2.0.9:8080'), line);
    assert.ok(line!.includes('jdbc:postgresql://app:******@db/orders'), line);
    assert.ok(line!.includes('ops@example.com'), 'an address is no URL');
    if (format === 'json') assert.is((JSON.parse(line!) as { url: string }).url, 'https://ops:******@vigil.example/x');
  }
});

test.run();
