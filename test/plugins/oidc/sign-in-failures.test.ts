import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestKernel } from '../../../bin/testing.js';
import { startProvider, type TestProvider } from './support/provider.js';
import { UserAgent, type Step } from './support/user-agent.js';
import { startVigil, whoIs } from './support/vigil.js';

let provider: TestProvider;
let tk: TestKernel;

test.before(async () => {
  provider = await startProvider({ groups: { alice: ['ops'] } });
  tk = await startVigil(provider);
});

test.after(async () => {
  await tk?.stop();
  await provider?.close();
});

const isCallback = (url: string) => url.includes('/login/oidc/callback');

/** Starts a sign-in and signs in at the provider, stopping before the browser goes back: the callback URL. */
async function atCallback(agent: UserAgent): Promise<URL> {
  const step = await agent.open(`${tk.url}/login`, { login: 'alice', stopAt: isCallback });
  assert.ok(step.location && isCallback(step.location), `reached the callback: ${step.url} ${step.status}`);
  return new URL(step.location);
}

/** A refusal page: status, title, no session begun, and nothing of the provider's answer in it. */
function assertRefusedPage(agent: UserAgent, step: Step, status: number, title: string, secret?: string): void {
  assert.is(step.status, status, step.body);
  assert.match(step.contentType, 'text/html');
  assert.match(step.body, `<h1>${title}</h1>`);
  assert.match(step.body, '<a href="/login">Sign in again</a>');
  assert.not.ok(step.setCookies.some((line) => line.startsWith('vigil_session=')), 'no session');
  assert.is(agent.cookie(tk.url, 'vigil_session'), undefined);
  assert.ok(step.setCookies.includes('vigil_login=; Path=/login; Max-Age=0; HttpOnly; SameSite=Lax'), 'the attempt is used up');
  if (secret !== undefined) {
    assert.not.ok(step.body.includes(secret), 'the page does not echo the provider\'s answer');
    assert.not.ok(tk.logs().some((line) => line.includes(secret)), 'nor does the log');
  }
}

test('a callback whose state differs from the one sent is refused', async () => {
  const agent = new UserAgent();
  const callback = await atCallback(agent);
  const code = callback.searchParams.get('code')!;
  callback.searchParams.set('state', 'forged-state');
  const step = await agent.send('GET', callback.href);
  assertRefusedPage(agent, step, 400, 'Sign-in failed', code);
  assert.match(step.body, 'did not check out');
  assert.ok(tk.logs().some((line) => line.includes('did not check out') && line.includes('state')));
  assert.is(await whoIs(agent, tk.url), 401);
});

test('an ID token whose nonce differs from the attempt\'s is refused', async () => {
  const agent = new UserAgent();
  const callback = await atCallback(agent);
  const attempt = JSON.parse(Buffer.from(agent.cookie(tk.url, 'vigil_login')!, 'base64url').toString()) as Record<string, unknown>;
  agent.setCookie(tk.url, 'vigil_login', Buffer.from(JSON.stringify({ ...attempt, n: 'another-nonce' })).toString('base64url'), '/login');
  const step = await agent.send('GET', callback.href);
  assertRefusedPage(agent, step, 400, 'Sign-in failed', callback.searchParams.get('code')!);
  assert.ok(tk.logs().some((line) => line.includes('did not check out') && line.includes('nonce')));
});

test('a PKCE verifier that does not match is refused by the provider', async () => {
  const agent = new UserAgent();
  const callback = await atCallback(agent);
  const attempt = JSON.parse(Buffer.from(agent.cookie(tk.url, 'vigil_login')!, 'base64url').toString()) as Record<string, unknown>;
  agent.setCookie(tk.url, 'vigil_login', Buffer.from(JSON.stringify({ ...attempt, v: 'x'.repeat(43) })).toString('base64url'), '/login');
  const step = await agent.send('GET', callback.href);
  assertRefusedPage(agent, step, 400, 'Sign-in failed', callback.searchParams.get('code')!);
  assert.match(step.body, 'did not accept this sign-in');
  assert.ok(tk.logs().some((line) => line.includes('refused the code: invalid_grant')));
});

test('a callback without the attempt\'s cookie (another browser, or used already) is refused; so is a replayed code', async () => {
  const agent = new UserAgent();
  const callback = await atCallback(agent);
  const cookie = agent.cookie(tk.url, 'vigil_login')!;
  const stranger = new UserAgent();
  const elsewhere = await stranger.send('GET', callback.href);
  assert.is(elsewhere.status, 400);
  assert.match(elsewhere.body, '<h1>Sign-in expired</h1>');

  const done = await agent.send('GET', callback.href);
  assert.is(done.status, 303);
  const session = agent.cookie(tk.url, 'vigil_session');
  const again = await agent.send('GET', callback.href);
  assert.is(again.status, 400);
  assert.match(again.body, '<h1>Sign-in expired</h1>');
  // The session begun by the first use is not touched by the second.
  assert.is(agent.cookie(tk.url, 'vigil_session'), session);
  assert.equal(await whoIs(agent, tk.url), { name: 'alice', kind: 'user', via: 'oidc', groups: ['ops'] });
  // With the attempt's cookie put back, the code itself is spent.
  agent.setCookie(tk.url, 'vigil_login', cookie, '/login');
  const replayed = await agent.send('GET', callback.href, { headers: { accept: 'application/json' } });
  assert.is(replayed.status, 400);
  assert.match(replayed.contentType, 'application/json');
  const body = JSON.parse(replayed.body) as Record<string, unknown>;
  assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
  assert.is(body.message, 'Sign-in failed: The identity provider did not accept this sign-in; sign in again.');
  assert.is(body.path, '/login/oidc/callback');
});

test('the person cancelling at the provider: 403 naming its error code, and no more of what it said', async () => {
  const agent = new UserAgent();
  const login = await agent.send('GET', `${tk.url}/login`);
  const form = await agent.open(login.location!);
  const abort = /href="([^"]+\/abort)"/.exec(form.body)![1]!;
  const step = await agent.open(abort, { stopAt: isCallback });
  const callback = new URL(step.location!);
  assert.is(callback.searchParams.get('error'), 'access_denied');
  const answer = await agent.send('GET', callback.href);
  assertRefusedPage(agent, answer, 403, 'Sign-in refused', 'End-User aborted interaction');
  assert.match(answer.body, 'The identity provider did not sign you in (access_denied).');
});

test('what a callback brings is never shown as markup', async () => {
  const agent = new UserAgent();
  const callback = await atCallback(agent);
  const forged = new URL(callback.pathname, callback);
  forged.searchParams.set('error', '<img src=x onerror=alert(1)>');
  forged.searchParams.set('error_description', '<script>alert(2)</script>');
  forged.searchParams.set('state', callback.searchParams.get('state')!);
  forged.searchParams.set('iss', callback.searchParams.get('iss')!);
  const step = await agent.send('GET', forged.href);
  assertRefusedPage(agent, step, 403, 'Sign-in refused', '<script>');
  assert.not.match(step.body, '<img');
  assert.match(step.body, 'The identity provider did not sign you in.');
  assert.is(step.setCookies.length, 1);
});

test('a provider that cannot be reached: 503, and the daemon keeps serving', async () => {
  const gone = await startProvider();
  await gone.close();
  const down = await startVigil(gone);
  try {
    const agent = new UserAgent();
    const step = await agent.send('GET', `${down.url}/login`);
    assert.is(step.status, 503);
    assert.match(step.body, '<h1>The identity provider cannot be reached</h1>');
    const json = await agent.send('GET', `${down.url}/login`, { headers: { accept: 'application/json' } });
    assert.is(json.status, 503);
    assert.match(JSON.parse(json.body).message, /^The identity provider cannot be reached: /);
    assert.ok(down.logs().some((line) => line.includes('cannot read the identity provider\'s configuration')));
  } finally {
    await down.stop();
  }
});

test.run();
