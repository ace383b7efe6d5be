import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPlugin, type TestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';
import { notifyKernel } from './support.js';

interface WindowBody {
  id: string;
  applications: string[];
  instances: string[];
  start: string;
  end: string;
  active: boolean;
  reason: string;
  createdBy: string;
  recurring: boolean;
  schedule?: string;
  timezone?: string;
  duration?: number;
}

let tk: TestKernel | undefined;
test.after.each(async () => {
  await tk?.stop();
  tk = undefined;
});

const windows = async (kernel: TestKernel) => (await call('GET', `${kernel.url}/maintenance`)).json as WindowBody[];

test('POST /maintenance: 201 with the window (M-1, active, anonymous), Location names it; GET lists and shows it', async () => {
  tk = await notifyKernel([]);
  const before = Date.now();
  const made = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders-*'], instances: ['1a2b3c4d5e6f'], duration: '2h', reason: 'database upgrade' } });
  const after = Date.now();
  assert.is(made.status, 201, made.text);
  const body = made.json as WindowBody;
  assert.is(made.headers.get('location'), '/maintenance/M-1');
  assert.equal(Object.keys(body), ['id', 'applications', 'instances', 'start', 'end', 'active', 'reason', 'createdBy', 'recurring']);
  assert.equal({ ...body, start: '', end: '' }, {
    id: 'M-1', applications: ['orders-*'], instances: ['1a2b3c4d5e6f'], start: '', end: '', active: true, reason: 'database upgrade', createdBy: 'anonymous', recurring: false,
  });
  const start = Date.parse(body.start);
  assert.ok(start >= before && start <= after, 'starts now');
  assert.is(Date.parse(body.end) - start, 7_200_000);
  assert.equal(await windows(tk), [body]);
  assert.equal((await call('GET', `${tk.url}/maintenance/M-1`)).json, body);
  const missing = await call('GET', `${tk.url}/maintenance/M-9`);
  assert.equal([missing.status, (missing.json as { message: string }).message], [404, 'maintenance window M-9 not found (or over)']);
});

test('GET /maintenance: running and planned windows by start, each with active; a start in the past means now', async () => {
  tk = await notifyKernel([]);
  const soon = new Date(Date.now() + 3_600_000).toISOString();
  const later = new Date(Date.now() + 7_200_000).toISOString();
  const planned = await call('POST', `${tk.url}/maintenance`, { json: { instances: ['aa11bb22cc33'], start: later, end: new Date(Date.now() + 9_000_000).toISOString() } });
  const first = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['billing'], start: soon, duration: 60_000 } });
  const before = Date.now();
  const past = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['shop'], start: '2020-01-01T00:00:00Z', duration: 'PT30M' } });
  assert.equal([planned.status, first.status, past.status], [201, 201, 201]);
  const pastBody = past.json as WindowBody;
  assert.ok(Date.parse(pastBody.start) >= before, pastBody.start);
  assert.is(Date.parse(pastBody.end) - Date.parse(pastBody.start), 1_800_000);
  const list = await windows(tk);
  assert.equal(list.map((w) => [w.id, w.active]), [['M-3', true], ['M-2', false], ['M-1', false]]);
  assert.equal([list[1]!.start, list[1]!.end], [soon, new Date(Date.parse(soon) + 60_000).toISOString()]);
  assert.is(list[2]!.start, later);
});

test('DELETE /maintenance/{id}: 204; a running window ends, a planned one is removed; then 404', async () => {
  tk = await notifyKernel([]);
  await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], duration: '1h' } });
  await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], start: new Date(Date.now() + 60_000).toISOString(), duration: '1h' } });
  for (const id of ['M-1', 'M-2']) {
    const deleted = await call('DELETE', `${tk.url}/maintenance/${id}`);
    assert.equal([deleted.status, deleted.text], [204, '']);
    const again = await call('DELETE', `${tk.url}/maintenance/${id}`);
    assert.equal([again.status, (again.json as { message: string }).message], [404, `maintenance window ${id} not found (or over)`]);
  }
  assert.equal(await windows(tk), []);
});

test('POST /maintenance: every bad body is a 400 naming the problem, and nothing is made', async () => {
  tk = await notifyKernel([]);
  const cases: [unknown, string][] = [
    [['orders'], 'the body must be a JSON object such as {"applications": ["orders-*"], "duration": "2h", "reason": "database upgrade"}'],
    [{ applications: ['orders'], duration: '1h', until: 'x' }, "unknown key 'until': a window takes applications, instances, start, end or duration, and reason"],
    [{ duration: '1h' }, 'a window needs \'applications\' (globs such as "orders-*") or \'instances\' (ids), or both'],
    [{ applications: [], instances: [], duration: '1h' }, 'a window needs \'applications\' (globs such as "orders-*") or \'instances\' (ids), or both'],
    [{ applications: 'orders', duration: '1h' }, "'applications' must be a list of strings"],
    [{ applications: [' '], duration: '1h' }, "'applications' must be a list of non-empty strings"],
    [{ instances: [42], duration: '1h' }, "'instances' must be a list of non-empty strings"],
    [{ applications: ['a\nb'], duration: '1h' }, "an entry of 'applications' has a control character"],
    [{ applications: ['x'.repeat(257)], duration: '1h' }, "an entry of 'applications' has at most 256 characters"],
    [{ applications: Array.from({ length: 101 }, (_, i) => `app-${i}`), duration: '1h' }, "'applications' has at most 100 entries"],
    [{ applications: ['orders'] }, 'a window needs \'end\' (an ISO-8601 instant) or \'duration\' (such as "2h")'],
    [{ applications: ['orders'], duration: '1h', end: '2099-01-01T00:00:00Z' }, "give either 'end' or 'duration', not both"],
    [{ applications: ['orders'], duration: 'soon' }, '\'duration\' must be a positive duration such as "90m", "2h" or "PT2H" (or milliseconds)'],
    [{ applications: ['orders'], duration: 0 }, '\'duration\' must be a positive duration such as "90m", "2h" or "PT2H" (or milliseconds)'],
    [{ applications: ['orders'], end: '2099-01-01T02:00:00' }, '\'end\' must be an ISO-8601 instant with its zone, such as "2026-03-29T02:00:00Z" or "2026-03-29T04:00:00+02:00"'],
    [{ applications: ['orders'], start: 'tomorrow', duration: '1h' }, '\'start\' must be an ISO-8601 instant with its zone, such as "2026-03-29T02:00:00Z" or "2026-03-29T04:00:00+02:00"'],
    [{ applications: ['orders'], start: '2099-01-02T00:00:00Z', end: '2099-01-01T00:00:00Z' }, "'end' must be after the start (2099-01-02T00:00:00.000Z)"],
    [{ applications: ['orders'], duration: '1h', reason: 7 }, "'reason' must be a string"],
    [{ applications: ['orders'], duration: '1h', reason: 'one\ntwo' }, "'reason' must be one line without control characters"],
    [{ applications: ['orders'], duration: '1h', reason: 'r'.repeat(1001) }, "'reason' has at most 1000 characters"],
  ];
  for (const [body, message] of cases) {
    const reply = await call('POST', `${tk.url}/maintenance`, { json: body });
    assert.equal([reply.status, (reply.json as { message: string }).message], [400, message], JSON.stringify(body).slice(0, 100));
  }
  const ended = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], end: '2020-01-01T00:00:00Z' } });
  assert.is(ended.status, 400);
  assert.match((ended.json as { message: string }).message, /^'end' must be after the start \(/);
  const text = await call('POST', `${tk.url}/maintenance`, { body: 'applications=orders', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  assert.is(text.status, 415);
  const broken = await call('POST', `${tk.url}/maintenance`, { body: '{"applications":', headers: { 'content-type': 'application/json' } });
  assert.is(broken.status, 400);
  assert.equal(await windows(tk), []);
  // No id was spent on a refused body.
  const made = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], duration: '1h' } });
  assert.is((made.json as WindowBody).id, 'M-1');
});

test('notify.max-maintenance: one more live window is a 429 saying so; an ended one frees its place', async () => {
  tk = await notifyKernel([], { notify: { 'max-maintenance': 2 } });
  for (const app of ['a', 'b']) assert.is((await call('POST', `${tk.url}/maintenance`, { json: { applications: [app], duration: '1h' } })).status, 201);
  const refused = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['c'], duration: '1h' } });
  assert.equal([refused.status, (refused.json as { message: string }).message],
    [429, 'there are already 2 maintenance windows, the most notify.max-maintenance allows: delete one (or raise the limit)']);
  assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`)).status, 204);
  const made = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['c'], duration: '1h' } });
  assert.equal([made.status, (made.json as WindowBody).id], [201, 'M-3']);
});

test('with basic-auth: createdBy is the user; a registration client may not touch windows (403), and no one unauthenticated (401)', async () => {
  tk = await notifyKernel(['basic-auth'], {
    'basic-auth': { users: [{ username: 'alice', password: 'alice-password-1' }, { username: 'client', password: 'client-password-1', role: 'registration' }] },
  });
  const as = (user: string, password: string) => ({ authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` });
  const made = await call('POST', `${tk.url}/maintenance`, { json: { applications: ['orders'], duration: '1h' }, headers: as('alice', 'alice-password-1') });
  assert.equal([made.status, (made.json as WindowBody).createdBy], [201, 'alice']);
  const client = as('client', 'client-password-1');
  assert.is((await call('POST', `${tk.url}/maintenance`, { json: { applications: ['x'], duration: '1h' }, headers: client })).status, 403);
  assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`, { headers: client })).status, 403);
  assert.is((await call('GET', `${tk.url}/maintenance`, { headers: client })).status, 403);
  assert.is((await call('GET', `${tk.url}/maintenance`)).status, 401);
  assert.is((await call('DELETE', `${tk.url}/maintenance/M-1`)).status, 401);
  const list = await call('GET', `${tk.url}/maintenance`, { headers: as('alice', 'alice-password-1') });
  assert.equal((list.json as WindowBody[]).map((w) => w.id), ['M-1']);
});

test('recurring windows of notify.maintenance are listed with their current or next occurrence; DELETE is a 409', async () => {
  tk = await notifyKernel([], {
    notify: { maintenance: [{ name: 'nightly', applications: ['orders'], schedule: '0 2 * * *', timezone: 'Europe/Berlin', duration: '1h', reason: 'backups' }] },
  });
  const [nightly] = await windows(tk);
  // The occurrence running now (this test may run between 02:00 and 03:00 in Berlin), else the next.
  const now = Date.now();
  const expected = nextWallClock(now - 3_600_000, 'Europe/Berlin', '02:00');
  assert.equal(nightly, {
    id: 'nightly', applications: ['orders'], instances: [], start: new Date(expected).toISOString(), end: new Date(expected + 3_600_000).toISOString(),
    active: expected <= now, reason: 'backups', createdBy: 'config', recurring: true, schedule: '0 2 * * *', timezone: 'Europe/Berlin', duration: 3_600_000,
  });
  const refused = await call('DELETE', `${tk.url}/maintenance/nightly`);
  assert.equal([refused.status, (refused.json as { message: string }).message],
    [409, 'maintenance window nightly is a recurring window of notify.maintenance in the config file: remove it there (and reload)']);
  // A window running all the time (every minute, for an hour) is active now.
  await tk.reload({ notify: { maintenance: [{ name: 'always', instances: ['1a2b3c4d5e6f'], schedule: '* * * * *', duration: '1h' }] } });
  const [always] = await windows(tk);
  assert.equal([always!.id, always!.active, always!.timezone], ['always', true, 'UTC']);
});

test('notify.maintenance and notify.expectations: bad entries are config errors naming the key', async () => {
  const problems = async (notify: Record<string, unknown>) => checkPlugin('notify', { notify });
  assert.equal(await problems({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 2 * * SUN', duration: '2h', timezone: 'Europe/Berlin' }] }), []);
  const expectProblem = async (notify: Record<string, unknown>, text: string) => {
    const found = await problems(notify);
    assert.ok(found.some((problem) => problem.includes(text)), `${text}\n${found.join('\n')}`);
  };
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 2 * *', duration: '1h' }] },
    'notify.maintenance[0].schedule: must be a 5-field cron pattern (minute hour day-of-month month day-of-week), such as "0 2 * * SUN"; "0 2 * *" has 4 fields');
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 0 2 * * SUN', duration: '1h' }] }, 'has 6 fields');
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '61 2 * * *', duration: '1h' }] },
    'notify.maintenance[0].schedule: "61 2 * * *" is not a valid cron pattern: Invalid value for minute: 61');
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 2 * * *', duration: '1h', timezone: 'Mars/Base' }] },
    'notify.maintenance[0].timezone: must be an IANA time zone such as Europe/Berlin or UTC');
  await expectProblem({ maintenance: [{ name: 'n', schedule: '0 2 * * *', duration: '1h' }] }, 'notify.maintenance[0]: must name applications or instances (or both)');
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 2 * * *' }] }, 'notify.maintenance[0].duration: is required');
  await expectProblem({ maintenance: [{ name: 'bad name', applications: ['a'], schedule: '0 2 * * *', duration: '1h' }] }, 'notify.maintenance[0].name: must be letters, digits');
  await expectProblem({ maintenance: [{ name: 'n', applications: ['a'], schedule: '0 2 * * *', duration: '1h', every: 'day' }] }, 'notify.maintenance[0]: has unknown key(s): every');
  const twice = { name: 'n', applications: ['a'], schedule: '0 2 * * *', duration: '1h' };
  await expectProblem({ maintenance: [twice, twice] }, 'notify.maintenance: has two windows named "n": each needs its own name');
  await expectProblem({ 'max-maintenance': 0 }, 'notify.max-maintenance: must be greater than or equal to 1');
  assert.equal(await problems({ expectations: [{ applications: ['payments-*'], 'min-up': 2, for: '1m' }], 'expectations-forget-after': '24h' }), []);
  await expectProblem({ expectations: [{ 'min-up': 2 }] }, 'notify.expectations[0].applications: is required');
  await expectProblem({ expectations: [{ applications: [], 'min-up': 2 }] }, 'notify.expectations[0].applications: must name at least one application');
  await expectProblem({ expectations: [{ applications: ['a'], 'min-up': 0 }] }, 'notify.expectations[0].min-up: must be at least 1');
  await expectProblem({ expectations: [{ applications: ['a'], 'min-up': 1.5 }] }, 'notify.expectations[0].min-up: must be a whole number');
  await expectProblem({ expectations: [{ applications: ['a'], for: 'later' }] }, 'notify.expectations[0].for: must be a duration');
  await expectProblem({ expectations: [{ applications: ['a'], 'min-ups': 2 }] }, 'notify.expectations[0]: has unknown key(s): min-ups');
});

/** The first instant after `from` (whole minutes) at which the wall clock of `zone` reads `hhmm`: worked out apart from croner. */
function nextWallClock(from: number, zone: string, hhmm: string): number {
  const format = new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' });
  let at = Math.floor(from / 60_000) * 60_000 + 60_000;
  while (format.format(new Date(at)) !== hhmm) at += 60_000;
  return at;
}

test.run();
