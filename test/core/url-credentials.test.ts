import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestKernel } from '../../bin/testing.js';
import { maskUrlPassword } from '../../core/store/url-credentials.js';
import { call } from '../support/http.js';

test('the password of a URL\'s userinfo is masked; everything else is kept as written', () => {
  assert.is(maskUrlPassword('http://ops:s3cret@10.0.0.5:8080/actuator/health'), 'http://ops:******@10.0.0.5:8080/actuator/health');
  assert.is(maskUrlPassword('https://ops:p@ss:w@rd@host/x?y=@z#@'), 'https://ops:******@host/x?y=@z#@');
  assert.is(maskUrlPassword('http://:only-password@host/'), 'http://:******@host/');
  assert.is(maskUrlPassword('http://host\\@evil:1/'), 'http://host\\@evil:1/');
});

test('every form the WHATWG parser reads a password in is masked, as undici and browsers would read it', () => {
  const forms = [
    'http:user:secret@host/health', 'HTTP:user:secret@host/x', 'http:/user:secret@host/', 'http:///user:secret@host/',
    'http:\\user:secret@host/', 'https:\\/user:secret@host:8443/a?b#c', 'http://user:sec@ret@host/', 'http://user:secret@host\\path',
  ];
  for (const url of forms) {
    assert.is(new URL(url).password !== '', true, `${url} has a password to the parser`);
    const masked = maskUrlPassword(url);
    assert.not.match(masked, /secret|sec@ret/, url);
    assert.is(new URL(masked).password, '******', url);
    assert.is(new URL(masked).host, new URL(url).host, url);
  }
  // Scheme-relative hrefs (an index may list them) are read against the instance's URL.
  assert.is(maskUrlPassword('//user:secret@host/x'), '//user:******@host/x');
});

test('URLs without a password come back unchanged', () => {
  for (const url of ['http://host:8080/actuator', 'http://ops@host/', 'http://host/a@b', 'http://host/?u=a:b@c', 'no-scheme@host:1', '']) {
    assert.is(maskUrlPassword(url), url);
  }
  assert.is(maskUrlPassword(null), null);
});

test('a registration with credentials in its URLs never shows them: instance, list, events and endpoints', async () => {
  const tk = await startTestKernel({ plugins: ['rest-api'] });
  try {
    const registered = await call('POST', `${tk.url}/instances`, {
      json: { name: 'shop', healthUrl: 'http://ops:hunter2@127.0.0.1:1/actuator/health', managementUrl: 'http://ops:hunter2@127.0.0.1:1/actuator', serviceUrl: 'http://ops:hunter2@127.0.0.1:1/' },
    });
    assert.is(registered.status, 201);
    const { id } = registered.json as { id: string };
    const replies = await Promise.all([`/instances/${id}`, '/instances', '/instances/events', '/applications'].map((path) => call('GET', `${tk.url}${path}`)));
    for (const reply of replies) {
      assert.is(reply.status, 200);
      assert.not.ok(reply.text.includes('hunter2'), reply.text);
    }
    const instance = replies[0]!.json as { registration: Record<string, string>; endpoints: { id: string; url: string }[] };
    assert.is(instance.registration.healthUrl, 'http://ops:******@127.0.0.1:1/actuator/health');
    assert.is(instance.registration.managementUrl, 'http://ops:******@127.0.0.1:1/actuator');
    assert.is(instance.registration.serviceUrl, 'http://ops:******@127.0.0.1:1/');
    assert.equal(instance.endpoints, [{ id: 'health', url: 'http://ops:******@127.0.0.1:1/actuator/health' }]);
    // Stored as given: the id is still that of the URL registered, so the client's heartbeat finds it.
    assert.is(tk.kernel.registry.get(id)!.registration!.healthUrl, 'http://ops:hunter2@127.0.0.1:1/actuator/health');
  } finally {
    await tk.stop();
  }
});

test.run();
