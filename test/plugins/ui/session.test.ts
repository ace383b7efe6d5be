import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../../bin/testing.js';
import { call } from '../../support/http.js';

const ADMIN = { username: 'admin', password: 'session-Secret-7' };
const authorization = `Basic ${Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString('base64')}`;

test('ui/session: nobody without authentication; the basic-auth user, with neither a sign-in page nor a sign-out', async () => {
  const open = await startTestKernel({ plugins: ['rest-api', 'sse', 'ui'], config: { 'log-level': 'warn' } });
  const basic = await startTestKernel({ plugins: ['rest-api', 'sse', 'basic-auth', 'ui'], config: { 'log-level': 'warn', 'context-path': '/admin', 'basic-auth': { users: [ADMIN] } } });
  try {
    const nobody = await call('GET', `${open.url}/ui/session`, { headers: { accept: 'application/json' } });
    assert.is(nobody.status, 200);
    assert.is(nobody.headers.get('cache-control'), 'no-store');
    assert.equal(nobody.json, { name: null, via: null, signIn: null, signOut: null, audit: null });
    const admin = await call('GET', `${basic.url}/ui/session`, { headers: { accept: 'application/json', authorization } });
    assert.equal(admin.json, { name: 'admin', via: 'basic', signIn: null, signOut: null, audit: null });
    assert.is((await call('GET', `${basic.url}/ui/session`)).status, 401);
  } finally {
    await open.stop();
    await basic.stop();
  }
});

test.run();
