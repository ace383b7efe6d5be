import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { MAX_HEADER_BYTES, countedHeadBytes } from './support/fuzz/spec.js';
import { sendRaw } from './support/raw-http.js';

// The fuzz oracle expects 431 from Node itself once countedHeadBytes reaches the limit: this is the
// measurement that rule stands on, against Node's own parser (a Node upgrade that counts
// differently fails here, not as a rare fuzz seed).
test('Node answers 431 exactly when the counted head bytes reach the limit (target, names, values)', async () => {
  const server = createServer((_req, res) => res.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  try {
    const byTarget = (n: number) => Buffer.from(`GET /${'a'.repeat(n)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`, 'latin1');
    const byHeader = (n: number) => Buffer.from(`GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-A:  ${'a'.repeat(n)}\r\n\r\n`, 'latin1');
    for (const build of [byTarget, byHeader]) {
      const fits = build(MAX_HEADER_BYTES - countedHeadBytes(build(0)) - 1);
      const over = build(MAX_HEADER_BYTES - countedHeadBytes(build(0)));
      assert.is(countedHeadBytes(fits), MAX_HEADER_BYTES - 1);
      assert.is(countedHeadBytes(over), MAX_HEADER_BYTES);
      assert.is((await sendRaw(port, fits, { head: false })).status, 200);
      assert.is((await sendRaw(port, over, { head: false })).status, 431);
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test.run();
