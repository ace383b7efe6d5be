import { createHash } from 'node:crypto';
import { request } from 'node:http';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { SHARED_STATE, definePlugin, type SharedState, type VigilPlugin } from '../../../core/plugin-api.js';
import { startProvider } from './support/provider.js';
import { UserAgent } from './support/user-agent.js';
import { FakeClock, signIn, startVigil, whoIs } from './support/vigil.js';

const MINUTE = 60_000;

/** Hands the test the kernel's shared state, where the sessions are. */
function stateProbe(): { plugin: VigilPlugin<never>; state: () => SharedState } {
  let state: SharedState | undefined;
  const plugin = definePlugin({ name: 'state-probe', configKey: null, setup() {}, start(ctx) { state = ctx.services.use(SHARED_STATE); } }) as VigilPlugin<never>;
  return { plugin, state: () => state! };
}

test('a session ends after its idle timeout, and at its ttl however busy; the browser is then sent to sign in again', async () => {
  const provider = await startProvider({ refreshTokens: false });
  const clock = new FakeClock();
  const tk = await startVigil(provider, { clock, oidc: { session: { ttl: '2h', 'idle-timeout': '30m' } } });
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'alice');
    clock.advance(29 * MINUTE);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: [] });
    clock.advance(29 * MINUTE);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: [] }, 'each use moves the idle timeout on');
    clock.advance(31 * MINUTE);
    const idle = await agent.send('GET', `${tk.url}/whoami`, { headers: { accept: 'application/json' } });
    assert.is(idle.status, 401);
    assert.is(JSON.parse(idle.body).message, 'session expired or signed out; sign in again at /login');
    assert.equal(idle.setCookies, ['vigil_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);

    // Busy all along: every 20 minutes, and still over at 2 h.
    await signIn(agent, tk.url, 'alice');
    for (let minutes = 20; minutes < 120; minutes += 20) {
      clock.advance(20 * MINUTE);
      assert.is(typeof await whoIs(agent, tk.url), 'object', `in use at ${minutes} min`);
    }
    clock.advance(19 * MINUTE);
    assert.is(typeof await whoIs(agent, tk.url), 'object', 'in use at 1 h 59 min');
    clock.advance(2 * MINUTE);
    const page = await agent.send('GET', `${tk.url}/whoami`);
    assert.is(page.status, 302, 'a browser is sent to sign in again');
    assert.is(page.location, `${new URL(tk.url).origin}/login?return=%2Fwhoami`);
    assert.equal(page.setCookies, ['vigil_session=; Path=/; Max-Age=0; HttpOnly; SameSite=Lax']);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('signing in gives a new session id and ends the one the browser had; unknown or malformed ids are nobody', async () => {
  const provider = await startProvider();
  const tk = await startVigil(provider);
  try {
    const agent = new UserAgent();
    const first = await signIn(agent, tk.url, 'alice');
    // Another sign-in in the same browser (begun in a tab that had no session yet): the callback
    // comes back with the old session's cookie.
    agent.forget(tk.url, 'vigil_session');
    const step = await agent.open(`${tk.url}/login`, { login: 'alice', stopAt: (url) => url.includes('/login/oidc/callback') });
    agent.setCookie(tk.url, 'vigil_session', first);
    const back = await agent.send('GET', step.location!);
    assert.is(back.status, 303);
    const second = agent.cookie(tk.url, 'vigil_session')!;
    assert.match(second, /^[A-Za-z0-9_-]{43}$/);
    assert.is.not(second, first);
    const old = new UserAgent();
    old.setCookie(tk.url, 'vigil_session', first);
    assert.is(await whoIs(old, tk.url), 401, 'the session the browser had before is over');
    assert.is(typeof await whoIs(agent, tk.url), 'object');
    // A planted id (session fixation) is never taken on either: it was never a session.
    const planted = 'P'.repeat(43);
    const victim = new UserAgent();
    victim.setCookie(tk.url, 'vigil_session', planted);
    assert.is.not(await signIn(victim, tk.url, 'alice'), planted);
    for (const value of [planted, 'short', `${second}x`, `"${second.slice(1)}"`]) {
      const stranger = new UserAgent();
      stranger.setCookie(tk.url, 'vigil_session', value);
      assert.is(await whoIs(stranger, tk.url), 401, value);
    }
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('the store holds a hash of the session id, and nothing readable', async () => {
  const provider = await startProvider({ groups: { alice: ['ops-team'] } });
  const probe = stateProbe();
  const tk = await startVigil(provider, { plugins: ['rest-api', probe.plugin as unknown as string] });
  try {
    const agent = new UserAgent();
    const id = await signIn(agent, tk.url, 'alice');
    const entries = await probe.state().map('oidc.sessions').entries();
    assert.is(entries.length, 1);
    const [key, value] = entries[0]!;
    assert.is(key, createHash('sha256').update(id).digest('base64url'));
    for (const secret of [id, 'alice', 'ops-team', 'eyJ']) assert.not.ok(value.includes(secret), `the record does not show ${secret}`);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test('the refresh token renews the session before its tokens expire, re-reading the groups; a refused renewal ends it', async () => {
  const groups: Record<string, readonly string[]> = { alice: ['ops'] };
  const provider = await startProvider({ groups, accessTokenTtl: 300 });
  const clock = new FakeClock();
  const tk = await startVigil(provider, { clock });
  try {
    const agent = new UserAgent();
    await signIn(agent, tk.url, 'alice');
    assert.is(provider.grants.authorization_code, 1);
    clock.advance(3 * MINUTE);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops'] });
    assert.is(provider.grants.refresh_token, undefined, 'not yet: the tokens are good for 2 more minutes');

    groups.alice = ['ops', 'admins'];
    clock.advance(90_000);
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops', 'admins'] });
    assert.is(provider.grants.refresh_token, 1, 'renewed within a minute of expiry');
    assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops', 'admins'] });
    assert.is(provider.grants.refresh_token, 1, 'once');

    // Disabled at the provider: its next renewal is refused, and the session ends with it.
    await provider.revoke('alice');
    clock.advance(5 * MINUTE);
    assert.is(await whoIs(agent, tk.url), 401);
    assert.ok(tk.logs().some((line) => line.includes('session of alice ended: the identity provider refused to renew it (invalid_grant')), tk.logs().join('\n'));
    assert.is(await whoIs(agent, tk.url), 401, 'and stays ended');
  } finally {
    await tk.stop();
    await provider.close();
  }
});

/** Fails instead of hanging when `promise` does not settle (a stream that never ends). */
function within<T>(promise: Promise<T>, what: string, ms = 10_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => { timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms); });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** An event stream opened with a session cookie: resolves once it is open, with a promise of its end. */
function openStream(url: string, session: string): Promise<{ ended: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { headers: { accept: 'text/event-stream', cookie: `vigil_session=${session}` } }, (res) => {
      if (res.statusCode !== 200) return reject(new Error(`stream refused: ${res.statusCode}`));
      const ended = new Promise<void>((done) => {
        res.once('close', () => done());
        res.once('error', () => done());
      });
      res.once('data', () => resolve({ ended }));
    });
    req.once('error', reject);
    req.end();
  });
}

test('an event stream ends with its session: at once when signed out here, within the check when it idles out', async () => {
  const provider = await startProvider();
  const clock = new FakeClock();
  const tk = await startVigil(provider, { clock, plugins: ['rest-api', 'sse'], streamCheckMs: 20, oidc: { session: { ttl: '8h', 'idle-timeout': '10m' } } });
  try {
    const agent = new UserAgent();
    const session = await signIn(agent, tk.url, 'alice');
    const stream = await openStream(`${tk.url}/instances/events`, session);
    const out = await agent.send('POST', `${tk.url}/logout`, { form: {} });
    assert.is(out.status, 303);
    await within(stream.ended, 'the stream of a signed-out session ends');

    const again = await signIn(agent, tk.url, 'alice');
    const idle = await openStream(`${tk.url}/instances/events`, again);
    clock.advance(11 * MINUTE);
    await within(idle.ended, 'the stream of an idle session ends');
    assert.is(await whoIs(agent, tk.url), 401);
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test.run();
