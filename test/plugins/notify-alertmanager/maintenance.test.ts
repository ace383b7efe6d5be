import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SHARED_STATE } from '../../../core/plugin-api.js';
import { call, eventually } from '../../support/http.js';
import { requireBinary } from '../../support/require-binary.js';
import { Receiver, type Received } from '../notify/receiver.js';
import { contextProbe, notifyKernel, registerInstance, setStatus } from '../notify/support.js';
import { startAlertmanagerProcess } from './alertmanager-process.js';

const { test, path: alertmanagerBinary } = requireBinary('prometheus-alertmanager', 'apt-get install prometheus-alertmanager');

interface ApiSilence {
  id: string;
  status: { state: string };
  comment: string;
  createdBy: string;
  startsAt: string;
  endsAt: string;
  matchers: { name: string; value: string; isRegex: boolean; isEqual: boolean }[];
}

interface ApiAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  startsAt: string;
  status: { state: string; silencedBy: string[] };
}

const json = async <T>(url: string): Promise<T> => (await (await fetch(url)).json()) as T;

test('silence-maintenance: a window is silenced in the real Alertmanager (another source\'s alert about the application too); deleting it expires the silences', async () => {
  const am = await startAlertmanagerProcess(alertmanagerBinary);
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: am.url } });
  try {
    const id = await registerInstance(tk, 'billing');
    const made = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['payments-*'], instances: [id], duration: '2h', reason: 'database upgrade' } });
    assert.is(made.status, 201);
    const window = made.json as { start: string; end: string };
    const silences = await eventually(async () => {
      const list = (await json<ApiSilence[]>(`${am.url}/api/v2/silences`)).filter((s) => s.status.state === 'active');
      return list.length === 2 ? list : undefined;
    }, 'two silences in Alertmanager', 10_000);
    const byLabel = new Map(silences.map((s) => [s.matchers[0]!.name, s]));
    assert.equal(byLabel.get('application')!.matchers, [{ name: 'application', value: 'payments-.*', isRegex: true, isEqual: true }]);
    assert.equal(byLabel.get('instance_id')!.matchers, [{ name: 'instance_id', value: id, isRegex: false, isEqual: true }]);
    for (const silence of silences) {
      assert.equal([silence.createdBy, silence.comment], ['Vigil', 'database upgrade (Vigil maintenance window M-1, made by anonymous)']);
      assert.is(Date.parse(silence.endsAt), Date.parse(window.end));
      assert.ok(Date.parse(silence.startsAt) >= Date.parse(window.start) - 1000);
    }
    // An alert from another source about an application in the window is silenced too.
    const other = [{ labels: { alertname: 'DiskFull', application: 'payments-api' }, annotations: {} }];
    assert.is((await call('POST', `${am.url}/api/v2/alerts`, { json: other })).status, 200);
    const [diskFull] = await eventually(async () => {
      const alerts = await json<ApiAlert[]>(`${am.url}/api/v2/alerts?filter=${encodeURIComponent('alertname="DiskFull"')}`);
      return alerts[0]?.status.state === 'suppressed' ? alerts : undefined;
    }, 'the other source\'s alert to be silenced', 10_000);
    assert.equal(diskFull!.status.silencedBy, [byLabel.get('application')!.id]);
    assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`)).status, 204);
    await eventually(async () => (await json<ApiSilence[]>(`${am.url}/api/v2/silences`)).every((s) => s.status.state === 'expired'), 'the silences to be expired', 10_000);
    await eventually(async () => (await json<ApiAlert[]>(`${am.url}/api/v2/alerts?filter=${encodeURIComponent('alertname="DiskFull"')}`))[0]?.status.state === 'active',
      'the other alert to be active again', 10_000);
  } finally {
    await tk.stop();
    await am.stop();
  }
});

test('expectations in the real Alertmanager: VigilApplicationDegraded with the application label, resolved when it holds again', async () => {
  const am = await startAlertmanagerProcess(alertmanagerBinary);
  const tk = await notifyKernel(['notify-alertmanager'], {
    notify: { expectations: [{ applications: ['payments'], 'min-up': 1, for: '300ms' }] },
    'notify-alertmanager': { url: am.url, labels: { team: 'payments' } },
  });
  try {
    const id = await registerInstance(tk, 'payments');
    await setStatus(tk, id, 'UP');
    await setStatus(tk, id, 'DOWN');
    const query = `${am.url}/api/v2/alerts?filter=${encodeURIComponent('alertname="VigilApplicationDegraded"')}`;
    const [alert] = await eventually(async () => {
      const alerts = await json<ApiAlert[]>(query);
      return alerts.length === 1 ? alerts : undefined;
    }, 'the application alert', 10_000);
    assert.equal(alert!.labels, { alertname: 'VigilApplicationDegraded', application: 'payments', severity: 'critical', team: 'payments' });
    assert.equal(alert!.annotations, {
      summary: 'payments is degraded: 0 of 1 instance UP, 1 required', description: '0 of 1 instances of payments are UP; the expectation requires 1', up: '0', required: '1',
    });
    await setStatus(tk, id, 'UP');
    await eventually(async () => (await json<ApiAlert[]>(query)).length === 0, 'the application alert to be resolved', 10_000);
  } finally {
    await tk.stop();
    await am.stop();
  }
});

const exact = suite('silences, exactly');

const silencesPosted = (request: Received) => request.url.endsWith('/api/v2/silences');

exact('the exact silence request; a window that runs out is not expired (its silence ends with it), and the kept ids are forgotten', async () => {
  const receiver = await Receiver.start();
  let made = 0;
  receiver.route = (request) => (silencesPosted(request) ? { status: 200, body: JSON.stringify({ silenceID: `s-${(made += 1)}` }) } : undefined);
  const probe = contextProbe();
  const tk = await notifyKernel(['notify-alertmanager', probe.plugin], { 'notify-alertmanager': { url: `${receiver.url}/am/` } });
  try {
    const reply = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders', 'pay?-*'], instances: ['aa', 'b.b'], duration: '1500ms' } });
    const window = reply.json as { start: string; end: string };
    const posted = await receiver.received(2, silencesPosted);
    const bodies = posted.map((request) => request.json as Record<string, unknown>);
    assert.equal(bodies, [
      { matchers: [{ name: 'application', value: 'orders|pay.-.*', isRegex: true, isEqual: true }], startsAt: window.start, endsAt: window.end, createdBy: 'Vigil', comment: 'Vigil maintenance window M-1, made by anonymous' },
      { matchers: [{ name: 'instance_id', value: 'aa|b\\.b', isRegex: true, isEqual: true }], startsAt: window.start, endsAt: window.end, createdBy: 'Vigil', comment: 'Vigil maintenance window M-1, made by anonymous' },
    ]);
    assert.equal(posted.map((request) => request.method), ['POST', 'POST']);
    const kept = probe.ctx().services.use(SHARED_STATE)!.map('notify-alertmanager.silences');
    // Kept once Alertmanager's answers are read (just after they arrive).
    await eventually(async () => JSON.stringify(await kept.entries()) === JSON.stringify([['M-1', JSON.stringify({ applications: 's-1', instances: 's-2' })]]), 'both ids kept');
    await eventually(async () => (await kept.entries()).length === 0, 'the ids to be forgotten at the end', 10_000);
    assert.equal(receiver.requests.map((request) => request.method), ['POST', 'POST'], 'nothing expired');
    assert.ok(tk.logs().some((line) => line.includes('maintenance M-1: silence s-1 made in Alertmanager (application=~"orders|pay.-.*") until')), tk.logs().join('\n'));
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

exact('Alertmanager away when a window begins: the silence is made once it answers; on deletion a silence it no longer knows counts as expired', async () => {
  const receiver = await Receiver.start();
  receiver.answer({ status: 503, body: 'not ready' });
  receiver.route = (request) => (request.method === 'DELETE' ? { status: 404 } : undefined);
  receiver.fallback = { status: 200, body: JSON.stringify({ silenceID: 'abc' }) };
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: receiver.url } });
  try {
    assert.is((await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], duration: '1h' } })).status, 201);
    const [refused, accepted] = await receiver.received(2, silencesPosted, 10_000);
    assert.equal([refused!.status, accepted!.status], [503, 200]);
    assert.equal((accepted!.json as { matchers: unknown }).matchers, [{ name: 'application', value: 'orders', isRegex: false, isEqual: true }]);
    assert.ok(tk.logs().some((line) => line.includes('maintenance M-1: telling the start of the window did not go through (HTTP 503: not ready); trying again')), tk.logs().join('\n'));
    assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`)).status, 204);
    const [expired] = await receiver.received(1, (request) => request.method === 'DELETE');
    assert.equal([expired!.url, expired!.status], ['/api/v2/silence/abc', 404]);
    assert.is(receiver.requests.filter((request) => request.method === 'DELETE').length, 1);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

exact('silence-maintenance: false makes no silence', async () => {
  const receiver = await Receiver.start();
  const tk = await notifyKernel(['notify-alertmanager'], { 'notify-alertmanager': { url: receiver.url, 'silence-maintenance': false } });
  try {
    assert.is((await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], duration: '1h' } })).status, 201);
    await eventually(() => tk.logs().some((line) => line.includes('maintenance M-1 began')), 'the window to begin');
    // The round that began it has told every channel there is to tell.
    assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`)).status, 204);
    await eventually(() => tk.logs().some((line) => line.includes('maintenance M-1 ended')), 'the window to end');
    assert.equal(receiver.requests, []);
  } finally {
    await tk.stop();
    await receiver.close();
  }
});

test.run();
exact.run();
