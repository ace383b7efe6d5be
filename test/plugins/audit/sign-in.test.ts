import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually } from '../../support/http.js';
import { startProvider } from '../oidc/support/provider.js';
import { UserAgent } from '../oidc/support/user-agent.js';
import { signIn, startVigil } from '../oidc/support/vigil.js';
import type { Entry } from './support.js';

test('single sign-on: a sign-in, a sign-out and a failed sign-in are recorded, with who and from where', async () => {
  const provider = await startProvider({ groups: { alice: ['ops'] } });
  const tk = await startVigil(provider, { plugins: ['rest-api', 'audit'], config: { 'log-level': 'error' } });
  try {
    const admin = new UserAgent();
    await signIn(admin, tk.url, 'bob');
    const trail = async (): Promise<Entry[]> => {
      const step = await admin.send('GET', `${tk.url}/audit`, { headers: { accept: 'application/json' } });
      assert.is(step.status, 200, step.body);
      return JSON.parse(step.body) as Entry[];
    };
    const alice = new UserAgent();
    await signIn(alice, tk.url, 'alice');
    assert.is((await alice.send('POST', `${tk.url}/logout`, { headers: { accept: 'application/json' } })).status, 200);
    // A callback whose state does not match what this browser started: refused, and recorded.
    const mallory = new UserAgent();
    const step = await mallory.open(`${tk.url}/login`, { login: 'mallory', stopAt: (url) => url.includes('/login/oidc/callback') });
    const forged = new URL(step.location!);
    forged.searchParams.set('state', 'forged');
    assert.is((await mallory.send('GET', forged.href)).status, 400);

    const entries = await eventually(async () => {
      const found = (await trail()).filter((e) => e.action.startsWith('auth.'));
      return found.length === 4 ? found : undefined;
    }, 'four sign-in entries');
    assert.equal(entries.map((e) => [e.action, e.actor.name, e.actor.via, e.address]), [
      ['auth.sign-in-failed', 'unknown', 'oidc', '127.0.0.1'],
      ['auth.sign-out', 'alice', 'oidc', '127.0.0.1'],
      ['auth.sign-in', 'alice', 'oidc', '127.0.0.1'],
      ['auth.sign-in', 'bob', 'oidc', '127.0.0.1'],
    ]);
    assert.equal(entries[0]!.detail, { failures: 1, reason: 'the sign-in did not complete' });
    // The sign-in pages themselves are not recorded twice as requests.
    assert.not.ok((await trail()).some((e) => e.path === '/logout'));
  } finally {
    await tk.stop();
    await provider.close();
  }
});

test.run();
