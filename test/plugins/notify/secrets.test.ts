import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { eventually } from '../../support/http.js';
import { Receiver } from './receiver.js';
import { notificationsStatus, notifyKernel, registerInstance, setStatus } from './support.js';

/** The secret parts of the channel's URL: its last path segment, and two query values. */
const PATH = '/services/T000/B000/SLACKSECRETXYZ';
const SIG = 'S1G+VALUE/9=';
const KEY = 'k3y&v@lue';
const QUERY = `?sig=${encodeURIComponent(SIG)}&key=${encodeURIComponent(KEY)}`;
/** Pieces that must never be shown: each secret value whole, and long enough parts that a cut answer would leave. */
const FRAGMENTS = ['SLACKSECRETXYZ', 'SLACKSEC', 'T000/B000', 'T000\\/B000', 'S1G+VALUE', 'S1G%2BVALUE', 'k3y&v@lue', 'k3y&amp;v@lue', 'k3y%26v%40lue', 'v@lue'];

let receiver: Receiver;
let tk: TestKernel | undefined;

test.before.each(async () => {
  receiver = await Receiver.start();
});

test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
  await receiver.close();
});

const leaks = (text: string) => FRAGMENTS.filter((fragment) => text.includes(fragment));

test('a receiver quoting the secret URL path, query or query values (raw, encoded, HTML- or JSON-escaped, cut) shows none of them in GET /notifications or a log line', async () => {
  tk = await notifyKernel(['notify-slack'], {
    notify: { delivery: { 'backoff-base': '10ms', 'backoff-cap': '20ms' } },
    'notify-slack': { 'webhook-url': `${receiver.url}${PATH}${QUERY}`, 'rate-limit': 0 },
  });
  const html = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const answers = [
    // Apache's 404 page: the requested path, then the query HTML-escaped.
    { status: 404, body: `<html><body><h1>Not Found</h1><p>The requested URL ${PATH} was not found on this server.</p></body></html>` },
    { status: 404, body: `<p>No hook for ${html(`${PATH}${QUERY}`)}</p>` },
    // A JSON answer (PHP escapes slashes), the query decoded.
    { status: 404, body: JSON.stringify({ error: `unknown hook ${PATH}`, sig: SIG, key: KEY }).replace(/\//g, '\\/') },
    // The secret where the 200-character excerpt cuts it: no part of it may survive the cut.
    { status: 404, body: `${'x'.repeat(190)} ${PATH}` },
    { status: 400, body: `bad request: key=${html(KEY)} sig=${encodeURIComponent(SIG)}` },
    // A retried answer: the retry's warning line quotes it.
    { status: 503, body: `upstream ${receiver.url}${PATH}${QUERY} unavailable` },
  ];
  receiver.answer(...answers);
  const ids: string[] = [];
  for (let n = 0; n < answers.length; n++) ids.push(await registerInstance(tk, `app-${n}`));
  for (const id of ids) await setStatus(tk, id, 'DOWN');
  await eventually(async () => (await notificationsStatus(tk!)).channels[0]!.failed === answers.length - 1, 'every answer to be given up on or retried', 8000);
  await receiver.received(answers.length + 1);
  const status = await (await fetch(`${tk.url}/notifications`)).text();
  const reasons = (JSON.parse(status) as { channels: { recent: { reason?: string }[] }[] }).channels[0]!.recent.flatMap((r) => (r.reason ? [r.reason] : []));
  assert.is(reasons.length, answers.length - 1, status);
  assert.ok(reasons.every((reason) => reason.includes('******')), status);
  assert.equal(leaks(status), [], status);
  assert.equal(leaks(reasons.join('\n')), [], reasons.join('\n'));
  const logs = tk.logs().join('\n');
  assert.match(logs, /not delivered \(HTTP 503: upstream \*\*\*\*\*\* unavailable\)/);
  assert.equal(leaks(logs), [], logs);
});

test.run();
