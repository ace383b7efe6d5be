import { spawn } from 'node:child_process';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { FakeActuator } from '../../support/fake-actuator.js';
import { call } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';

const { test, path: promtool } = requireBinary('promtool', 'apt-get install prometheus');

/** `promtool check metrics`: Prometheus's own exposition parser plus its naming lint, on stdin. */
function check(text: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(promtool, ['check', 'metrics'], { stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.stderr.on('data', (chunk: Buffer) => { output += chunk.toString(); });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
    child.stdin.end(text);
  });
}

test('Prometheus\'s own parser reads the whole exposition and its lint finds nothing', async () => {
  const tk = await startTestKernel({
    plugins: ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index', 'metrics', 'prometheus-sd', 'probes', 'openapi'],
    config: { metrics: { 'per-instance': true } },
  });
  const fake = await FakeActuator.start();
  try {
    const { id } = (await call('POST', `${tk.url}/instances`, { json: fake.registration('shop "quoted"\\name') })).json as { id: string };
    await tk.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED', 'a status');
    await call('GET', `${tk.url}/nowhere`);
    const text = (await call('GET', `${tk.url}/metrics`)).text;
    assert.ok(text.includes('vigil_instance_up{application="shop \\"quoted\\"\\\\name"'), 'a label value that needs escaping');
    const result = await check(text);
    assert.is(result.output.trim(), '', result.output);
    assert.is(result.code, 0);
    // The check itself can fail: a gauge named like a counter is reported.
    assert.is.not((await check('# HELP vigil_x_total x\n# TYPE vigil_x_total gauge\nvigil_x_total 1\n')).code, 0);
  } finally {
    await tk.stop();
    await fake.close();
  }
});

test.run();
