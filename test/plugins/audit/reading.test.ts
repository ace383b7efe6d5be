import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { call, eventually } from '../../support/http.js';
import { ADMIN, OPERATOR, startAudit, type AuditKernel, type Entry } from './support.js';

const JSON_BODY = { 'content-type': 'application/json' };

async function withAudit(run: (a: AuditKernel) => Promise<void>, audit: Record<string, unknown> = {}): Promise<void> {
  const a = await startAudit({ audit });
  try {
    await run(a);
  } finally {
    await a.stop();
  }
}

/** Three writes: two logger changes by olga, one deregistration by root; waits until the trail holds `held` entries. */
async function someActions(a: AuditKernel, held = 3): Promise<void> {
  for (const level of ['DEBUG', 'INFO']) {
    await call('POST', `${a.tk.url}/instances/${a.id}/actuator/loggers/ROOT`, { headers: { ...OPERATOR, ...JSON_BODY }, body: `{"configuredLevel":"${level}"}` });
  }
  await call('DELETE', `${a.tk.url}/instances/${a.id}`, { headers: ADMIN });
  await eventually(async () => (await a.entries()).some((e) => e.action === 'instances.deregister') && (await a.entries()).length === held, 'the entries');
}

/** Opens an event stream: resolved once its headers came, which the route sends once it is subscribed. */
async function openStream(url: string, headers: Record<string, string>, signal: AbortSignal): Promise<{ res: Response; read(count: number): Promise<EventSourceMessage[]> }> {
  const res = await fetch(url, { headers: { accept: 'text/event-stream', ...headers }, signal });
  const messages: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (message) => messages.push(message) });
  const decoder = new TextDecoder();
  const reader = res.body!.getReader();
  return {
    res,
    async read(count) {
      while (messages.length < count) {
        const { value, done } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      return messages.slice(0, count);
    },
  };
}

test('GET /audit answers newest first, filtered by actor, application, instance, action and since, up to limit', () => withAudit(async (a) => {
  await someActions(a);
  const all = await a.entries();
  assert.equal(all.map((e) => [e.actor.name, e.action]), [['root', 'instances.deregister'], ['olga', 'actuator.write'], ['olga', 'actuator.write']]);
  assert.ok(all[0]!.id > all[1]!.id && all[1]!.id > all[2]!.id);
  assert.equal((await a.entries('?actor=olga')).map((e) => e.id), [all[1]!.id, all[2]!.id]);
  assert.equal((await a.entries('?actor=olga&limit=1')).map((e) => e.id), [all[1]!.id]);
  assert.equal((await a.entries('?action=instances.deregister')).map((e) => e.id), [all[0]!.id]);
  assert.is((await a.entries(`?instance=${a.id}&application=shop`)).length, 3);
  assert.equal(await a.entries('?application=billing'), []);
  assert.equal(await a.entries('?instance=nope'), []);
  assert.is((await a.entries(`?since=${encodeURIComponent(all[2]!.timestamp)}`)).length, 3);
  assert.equal(await a.entries('?since=2999-01-01'), []);
  const res = await call('GET', `${a.tk.url}/audit`, { headers: ADMIN });
  assert.is(res.headers.get('content-type'), 'application/json');
}));

test('GET /audit refuses a bad parameter with a 400 naming it', () => withAudit(async (a) => {
  const cases: [string, string][] = [
    ['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=ten', 'limit'], ['limit=', 'limit'],
    ['since=yesterday', 'since'], ['since=2026-13-45', 'since'], ['actor=', 'actor'], [`action=${'x'.repeat(300)}`, 'action'],
  ];
  for (const [query, name] of cases) {
    const res = await call('GET', `${a.tk.url}/audit?${query}`, { headers: ADMIN });
    assert.is(res.status, 400, query);
    assert.match(res.headers.get('content-type') ?? '', 'application/json');
    assert.match((res.json as { message: string }).message, `parameter "${name}"`, query);
  }
  assert.is((await call('GET', `${a.tk.url}/audit?limit=1000`, { headers: ADMIN })).status, 200);
}));

test('the trail keeps the newest max-entries', () => withAudit(async (a) => {
  await someActions(a, 2);
  const kept = await a.entries();
  assert.equal(kept.map((e) => e.action), ['instances.deregister', 'actuator.write']);
}, { 'max-entries': 2 }));

test('GET /audit as an event stream is live, filtered, and resumes after Last-Event-ID', () => withAudit(async (a) => {
  const abort = new AbortController();
  try {
    const live = await openStream(`${a.tk.url}/audit?actor=olga`, ADMIN, abort.signal);
    assert.is(live.res.status, 200);
    assert.match(live.res.headers.get('content-type') ?? '', 'text/event-stream');
    await someActions(a);
    const messages = await live.read(2);
    const entries = messages.map((m) => JSON.parse(m.data) as Entry);
    assert.equal(entries.map((e) => [e.actor.name, e.detail]), [['olga', { configuredLevel: 'DEBUG' }], ['olga', { configuredLevel: 'INFO' }]]);
    assert.equal(messages.map((m) => Number(m.id)), entries.map((e) => e.id));
    // Resumed after the first: the second olga entry, then (unfiltered) root's.
    const resumed = await openStream(`${a.tk.url}/audit`, { ...ADMIN, 'last-event-id': messages[0]!.id! }, abort.signal);
    assert.equal((await resumed.read(2)).map((m) => (JSON.parse(m.data) as Entry).actor.name), ['olga', 'root']);
  } finally {
    abort.abort();
  }
}));

test('a stream asks for admin too, and answers a bad parameter with 400 JSON', () => withAudit(async (a) => {
  const refused = await fetch(`${a.tk.url}/audit`, { headers: { accept: 'text/event-stream', ...OPERATOR } });
  assert.is(refused.status, 403);
  await refused.body?.cancel();
  const bad = await fetch(`${a.tk.url}/audit?since=soon`, { headers: { accept: 'text/event-stream', ...ADMIN } });
  assert.is(bad.status, 400);
  assert.match(await bad.text(), 'parameter \\"since\\"');
}));

test.run();
