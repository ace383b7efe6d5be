import { PassThrough } from 'node:stream';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseCli } from '../../bin/cli.js';
import { runProbeCommand } from '../../bin/probe-command.js';
import { startTestKernel } from '../../bin/testing.js';

function io() {
  const out = new PassThrough();
  const err = new PassThrough();
  let stdout = '';
  let stderr = '';
  out.on('data', (chunk: Buffer) => { stdout += chunk.toString(); });
  err.on('data', (chunk: Buffer) => { stderr += chunk.toString(); });
  return { streams: { stdout: out, stderr: err }, text: () => ({ stdout, stderr }) };
}

test('vigil probe: 0 on a 200, 1 otherwise, 2 on bad arguments', async () => {
  assert.equal(parseCli(['probe', 'http://x/health/readiness', '--wait', '5s']), { ok: true, options: { command: 'probe', args: ['http://x/health/readiness', '--wait', '5s'], checkConfig: false, overrides: {} } });
  const tk = await startTestKernel({ plugins: ['probes'] });
  try {
    const ready = io();
    assert.is(await runProbeCommand([`${tk.url}/health/readiness`], ready.streams), 0);
    assert.is(ready.text().stdout, '200 {"status":"UP","components":{"kernel":{"status":"UP"}}}\n');
    const missing = io();
    assert.is(await runProbeCommand([`${tk.url}/health/nope`, '--wait', '300ms'], missing.streams), 1);
    assert.match(missing.text().stderr, /^probe http:\/\/127\.0\.0\.1:\d+\/health\/nope: 404 /);
    for (const args of [[], ['ftp://x'], [`${tk.url}/x`, '--wait'], [`${tk.url}/x`, '--wait', 'soon']]) {
      const bad = io();
      assert.is(await runProbeCommand(args, bad.streams), 2, args.join(' '));
      assert.match(bad.text().stderr, /usage: vigil probe URL \[--wait DURATION\]/);
    }
  } finally {
    await tk.stop();
  }
  const down = io();
  assert.is(await runProbeCommand([`${tk.url}/health/readiness`], down.streams), 1);
  assert.match(down.text().stderr, /no answer: /);
});

test.run();
