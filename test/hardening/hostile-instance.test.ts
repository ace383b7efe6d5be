import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel, type TestKernel } from '../../bin/testing.js';
import { ACTUATOR_V3, FakeActuator } from '../support/fake-actuator.js';
import { call, eventually } from '../support/http.js';

/**
 * The security sweep's hostile-instance cases (issue 14): what anyone who can register an
 * instance, or lure an operator's browser to a page, could do to Vigil. Each case starts from the
 * request that reproduced the hole and checks what it gets now.
 */

const OPS_USER = 'ops-user';
const OPS_PASSWORD = 'ops-Secret-9d3e1a';
const OPS_BASIC = `Basic ${Buffer.from(`${OPS_USER}:${OPS_PASSWORD}`).toString('base64')}`;
const FAST = { 'status-interval': '200ms', 'status-lifetime': '100ms', 'info-interval': '200ms', 'info-lifetime': '100ms' };

const kernels: TestKernel[] = [];
const fakes: FakeActuator[] = [];

async function kernel(config: Record<string, unknown> = {}, plugins = ['rest-api', 'sse', 'proxy', 'monitor', 'detect-index']): Promise<TestKernel> {
  const tk = await startTestKernel({
    plugins,
    config: { 'instance-auth': { 'default-user-name': OPS_USER, 'default-password': OPS_PASSWORD }, monitor: FAST, ...config },
  });
  kernels.push(tk);
  return tk;
}

async function fake(options: Parameters<typeof FakeActuator.start>[0] = {}): Promise<FakeActuator> {
  const started = await FakeActuator.start(options);
  fakes.push(started);
  return started;
}

async function register(tk: TestKernel, body: Record<string, unknown>): Promise<string> {
  const res = await call('POST', `${tk.url}/instances`, { json: body });
  assert.is(res.status, 201, res.text);
  return (res.json as { id: string }).id;
}

test.after.each(async () => {
  for (const tk of kernels.splice(0)) await tk.stop();
  for (const each of fakes.splice(0)) await each.close();
});

test('hole 1: an instance page with a script is served sandboxed, as a download, never sniffed', async () => {
  const tk = await kernel();
  const evil = await fake({ links: ['health', 'x', 'env'] });
  evil.on('GET', '/x', { body: '<script>fetch("/instances",{method:"DELETE"})</script>', contentType: 'text/html' });
  evil.on('GET', '/env', { json: { activeProfiles: [] }, contentType: ACTUATOR_V3 });
  const id = await register(tk, evil.registration('evil'));
  await tk.waitForEvent((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED', 'the endpoints of the evil instance');

  const page = await call('GET', `${tk.url}/instances/${id}/actuator/x`);
  assert.is(page.status, 200);
  assert.is(page.headers.get('content-security-policy'), 'sandbox');
  assert.is(page.headers.get('x-content-type-options'), 'nosniff');
  assert.is(page.headers.get('content-disposition'), 'attachment');
  // JSON stays readable in place (the dashboard fetches it), still sandboxed.
  const json = await call('GET', `${tk.url}/instances/${id}/actuator/env`);
  assert.equal(json.json, { activeProfiles: [] });
  assert.is(json.headers.get('content-security-policy'), 'sandbox');
  assert.is(json.headers.get('content-disposition'), null);
  // The application fan-out carries the instances' bodies too.
  const fanned = await call('GET', `${tk.url}/applications/evil/actuator/x`);
  assert.is(fanned.headers.get('content-security-policy'), 'sandbox');
  assert.is(fanned.headers.get('x-content-type-options'), 'nosniff');
});

test('hole 2: a cross-site form post is refused before any route, with or without basic-auth; scripts and clients pass', async () => {
  for (const withAuth of [false, true]) {
    const auth = { 'basic-auth': { users: [{ username: 'admin', password: 'Adm1n-pw' }] } };
    const tk = await kernel(withAuth ? auth : {}, withAuth ? ['rest-api', 'proxy', 'monitor', 'detect-index', 'basic-auth'] : undefined);
    const credentials: Record<string, string> = withAuth ? { authorization: `Basic ${Buffer.from('admin:Adm1n-pw').toString('base64')}` } : {};
    const target = await fake({ links: ['health', 'loggers'] });
    target.on('POST', '/loggers', { status: 204 });
    const id = (await call('POST', `${tk.url}/instances`, { json: target.registration('target'), headers: credentials }).then((r) => r.json as { id: string })).id;
    await tk.waitForEvent((e) => e.instance === id && e.type === 'ENDPOINTS_DETECTED', 'detection');
    const form = { 'content-type': 'application/x-www-form-urlencoded', ...credentials };

    const forged = await call('POST', `${tk.url}/instances/${id}/actuator/loggers`, { body: 'a=b', headers: { ...form, origin: 'https://evil.example' } });
    assert.is(forged.status, 403, `with basic-auth: ${withAuth}`);
    assert.match((forged.json as { message: string }).message, /cross-site request refused/);
    const marked = await call('DELETE', `${tk.url}/instances/${id}`, { headers: { ...credentials, 'sec-fetch-site': 'cross-site' } });
    assert.is(marked.status, 403);
    const opaque = await call('POST', `${tk.url}/instances/${id}/actuator/loggers`, { body: 'a=b', headers: { ...form, origin: 'null' } });
    assert.is(opaque.status, 403);
    assert.is(target.requestsTo('/loggers', 'POST').length, 0, 'no forged request reached the instance');
    assert.ok(tk.kernel.registry.get(id)?.registered, 'nothing was deregistered');

    // The dashboard's own page posts with its own origin; scripts send no Origin at all.
    const host = new URL(tk.url).host;
    const own = await call('POST', `${tk.url}/instances/${id}/actuator/loggers`, { body: 'a=b', headers: { ...form, origin: `http://${host}`, 'sec-fetch-site': 'same-origin' } });
    assert.is(own.status, 204);
    const script = await call('POST', `${tk.url}/instances/${id}/actuator/loggers`, { body: 'a=b', headers: form });
    assert.is(script.status, 204);
    // Reading is never refused: a cross-site GET cannot change anything.
    assert.is((await call('GET', `${tk.url}/instances`, { headers: { ...credentials, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' } })).status, 200);
  }
});

test('hole 2: an origin the cors plugin lists may post; one it merely allows with * may not', async () => {
  const listed = await kernel({ cors: { 'allowed-origins': 'https://ops.example.com' } }, ['rest-api', 'cors']);
  const body = { name: 'x', healthUrl: 'http://127.0.0.1:9/health' };
  assert.is((await call('POST', `${listed.url}/instances`, { json: body, headers: { origin: 'https://ops.example.com' } })).status, 201);
  assert.is((await call('POST', `${listed.url}/instances`, { json: body, headers: { origin: 'https://evil.example' } })).status, 403);
  const star = await kernel({ cors: { 'allowed-origins': '*' } }, ['rest-api', 'cors']);
  assert.is((await call('POST', `${star.url}/instances`, { json: body, headers: { origin: 'https://ops.example.com' } })).status, 403);
});

test('hole 3: an index pointing info at another host: that host is never called, nothing of it is shown, no credentials leave', async () => {
  const tk = await kernel();
  const internal = await fake();
  internal.on('GET', '/secret', { json: { secret: 'internal-data' } });
  const evil = await fake({ links: ['health'] });
  evil.on('GET', '', {
    contentType: ACTUATOR_V3,
    json: { _links: { self: { href: evil.managementUrl }, health: { href: evil.healthUrl }, info: { href: internal.endpointUrl('secret') }, env: { href: internal.endpointUrl('secret') } } },
  });
  const id = await register(tk, evil.registration('evil'));
  await tk.waitForEvent((e) => e.instance === id && e.type === 'STATUS_CHANGED', 'the first health check');
  // Detection ran (the index was read) and every later info round too.
  await eventually(() => evil.requestsTo('/health').length >= 3, 'a few more checks');
  const shown = await call('GET', `${tk.url}/instances/${id}`);
  assert.equal((shown.json as { info: unknown }).info, {});
  assert.equal((shown.json as { endpoints: { id: string }[] }).endpoints.map((e) => e.id), ['health']);
  assert.is(internal.requests.length, 0, 'the other host was never called');
  assert.is((await call('GET', `${tk.url}/instances/${id}/actuator/info`)).status, 404);
  assert.is(internal.requests.length, 0);
  const refusals = tk.logs().filter((line) => line.includes(`endpoint "info" of ${id} points at ${internal.origin}`));
  assert.is(refusals.length, 1, 'logged once');
  // The instance's own calls carry the operator's credentials and Vigil's User-Agent.
  assert.is(evil.requestsTo('/health')[0]!.headers.authorization, OPS_BASIC);
  assert.match(String(evil.requestsTo('/health')[0]!.headers['user-agent']), /^Vigil\/\S+ \(node [^)]+\)$/);
});

test('hole 3: with allow-foreign-endpoints the other host is used, but never gets the credentials', async () => {
  const tk = await kernel({ monitor: { ...FAST, 'allow-foreign-endpoints': true } });
  const other = await fake();
  other.on('GET', '/elsewhere', { json: { from: 'other' } });
  const own = await fake({ links: ['health'] });
  own.on('GET', '', {
    contentType: ACTUATOR_V3,
    json: { _links: { self: { href: own.managementUrl }, health: { href: own.healthUrl }, info: { href: other.endpointUrl('elsewhere') } } },
  });
  const id = await register(tk, own.registration('own'));
  await tk.waitForEvent((e) => e.instance === id && e.type === 'INFO_CHANGED', 'info from the other host');
  assert.ok(other.requestsTo('/elsewhere').length > 0);
  for (const request of other.requests) assert.is(request.headers.authorization, undefined);
  const proxied = await call('GET', `${tk.url}/instances/${id}/actuator/info`, { headers: { authorization: 'Bearer from-the-browser' } });
  assert.is(proxied.status, 200);
  for (const request of other.requests) assert.is(request.headers.authorization, undefined);
});

test('hole 4: a URL with userinfo in the no-slash form is refused, naming the field; every form is masked where shown', async () => {
  const tk = await kernel({}, ['rest-api', 'sse']);
  for (const url of ['http:user:secret@127.0.0.1:9/health', 'http:/user:secret@127.0.0.1:9/health', 'http:\\\\user:secret@127.0.0.1:9/health', 'HTTP:user:secret@h/x']) {
    const res = await call('POST', `${tk.url}/instances`, { json: { name: 'pw', healthUrl: url } });
    assert.is(res.status, 400, url);
    assert.match((res.json as { message: string }).message, /'healthUrl' is not valid/);
    assert.not.match(res.text, /secret/, 'the refusal does not echo the password');
  }
  const managed = await call('POST', `${tk.url}/instances`, { json: { name: 'pw', healthUrl: 'http://127.0.0.1:9/health', managementUrl: 'https:u:secret@h/a' } });
  assert.is(managed.status, 400);
  assert.match((managed.json as { message: string }).message, /'managementUrl' is not valid/);
  assert.is(tk.kernel.registry.list().length, 0, 'nothing was registered');

  const id = await register(tk, {
    name: 'pw', healthUrl: 'http://user:secret@127.0.0.1:9/health', metadata: { 'tags.password': 'tag-Secret-1', 'tags.env': 'prod' },
  });
  await tk.kernel.registry.apply(id, () => ({
    type: 'ENDPOINTS_DETECTED',
    endpoints: [{ id: 'a', url: 'http:user:secret@127.0.0.1:9/a' }, { id: 'b', url: '//user:secret@127.0.0.1:9/b' }, { id: 'c', url: 'http:\\\\user:secret@127.0.0.1:9/c' }],
  }));
  for (const path of ['/instances', `/instances/${id}`, '/instances/events', '/applications']) {
    const res = await call('GET', `${tk.url}${path}`);
    assert.not.match(res.text, /secret|tag-Secret-1/i, path);
  }
  const instance = (await call('GET', `${tk.url}/instances/${id}`)).json as { tags: Record<string, string>; endpoints: { id: string; url: string }[] };
  assert.equal(instance.tags, { password: '******', env: 'prod' });
  assert.equal(instance.endpoints.map((e) => e.url), [
    'http://user:******@127.0.0.1:9/health', 'http:user:******@127.0.0.1:9/a', '//user:******@127.0.0.1:9/b', 'http:\\\\user:******@127.0.0.1:9/c',
  ]);
});

test('hole 5: an instance reporting a new status every check stays within max-events-per-instance', async () => {
  const tk = await kernel({ 'event-store': { 'max-events-per-instance': 10 } }, ['rest-api', 'monitor']);
  const flipping = await fake({ links: null });
  let n = 0;
  flipping.on('GET', '/health', { handler: (_req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ status: `S${(n += 1)}` })) });
  const id = await register(tk, { name: 'flip', healthUrl: flipping.healthUrl });
  await eventually(() => n >= 30, '30 checks', 20_000);
  const events = ((await call('GET', `${tk.url}/instances/events`)).json as { instance: string }[]).filter((e) => e.instance === id);
  assert.ok(events.length <= 10, `${events.length} events held`);
  assert.ok(events.length >= 9, 'the history is full, not empty');
});

test('hole 5: a status longer than 64 characters and details over the limit are cut, the cut shown, and recorded once', async () => {
  const tk = await kernel({ 'event-store': { 'max-details-bytes': 2048 } }, ['rest-api', 'monitor']);
  const big = await fake({ links: null });
  const status = `DOWN${'X'.repeat(200)}`;
  big.setHealth(200, { status, components: { db: { status: 'UP' }, huge: { details: 'y'.repeat(10_000) } } }, 'application/json');
  const id = await register(tk, { name: 'big', healthUrl: big.healthUrl });
  const event = await tk.waitForEvent((e) => e.instance === id && e.type === 'STATUS_CHANGED', 'the status');
  await eventually(() => big.requestsTo('/health').length >= 4, 'more checks');
  const recorded = tk.kernel.registry.eventsOf(id).filter((e) => e.type === 'STATUS_CHANGED');
  assert.is(recorded.length, 1, 'the same oversized answer is one change, not one per check');
  assert.ok(event.type === 'STATUS_CHANGED');
  if (event.type !== 'STATUS_CHANGED') return;
  assert.is(event.statusInfo.status, status.slice(0, 64));
  assert.equal(event.statusInfo.details.db, { status: 'UP' });
  assert.is(event.statusInfo.details.huge, undefined);
  assert.match(String(event.statusInfo.details['vigil.truncated']), /status details of \d+ bytes cut to the 2048-byte limit; left out: huge/);
  assert.ok(Buffer.byteLength(JSON.stringify(event.statusInfo.details)) <= 2048);
});

test('hole 7: a Last-Event-ID from an earlier run is never taken for an id of this run', async () => {
  const first = await kernel({}, ['rest-api', 'sse']);
  await register(first, { name: 'a', healthUrl: 'http://127.0.0.1:9/a' });
  await register(first, { name: 'b', healthUrl: 'http://127.0.0.1:9/b' });
  const oldId = first.kernel.registry.lastSeq;
  await first.stop();
  const second = await kernel({}, ['rest-api', 'sse']);
  await register(second, { name: 'c', healthUrl: 'http://127.0.0.1:9/c' });
  const fresh = second.kernel.registry.events()[0]!.seq;
  assert.ok(fresh > oldId, `this run's first id ${fresh} is above the last one of the earlier run ${oldId}`);
  assert.is(second.kernel.registry.resumePoint(oldId), 0, 'resuming after an old id replays everything held');
  assert.is(second.kernel.registry.resumePoint(fresh), fresh);
});

test.run();
