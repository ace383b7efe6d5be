import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { FakeActuator } from '../../../support/fake-actuator.js';
import { accessKernel, as, bearer, call, errorOf, registerAt } from './support.js';

test('an instance or application outside the caller\'s applications answers exactly as an unknown one, in every route (proxy included)', async () => {
  const tk = await accessKernel();
  const orders = await FakeActuator.start();
  try {
    const id = await registerAt(tk, 'orders', orders);
    const unknown = 'ffffffffffff';
    const routes: [string, (target: string) => string, 'instance' | 'application'][] = [
      ['GET', (target) => `/instances/${target}`, 'instance'],
      ['GET', (target) => `/instances/${target}/health-groups`, 'instance'],
      ['GET', (target) => `/instances/${target}/events`, 'instance'],
      ['GET', (target) => `/instances/${target}/actuator/health`, 'instance'],
      ['POST', (target) => `/instances/${target}/actuator/loggers/ROOT`, 'instance'],
      ['GET', (target) => `/applications/${target}`, 'application'],
    ];
    for (const [method, path, kind] of routes) {
      const [hidden, missing] = kind === 'instance' ? [id, unknown] : ['orders', 'no-such-app'];
      const outOfScope = await call(method, `${tk.url}${path(hidden)}`, { headers: as('alice'), ...(method === 'POST' ? { json: {} } : {}) });
      const absent = await call(method, `${tk.url}${path(missing)}`, { headers: as('root'), ...(method === 'POST' ? { json: {} } : {}) });
      assert.is(outOfScope.status, 404, `${method} ${path(hidden)}`);
      // The same answer, with the caller's own id in place of the unknown one.
      assert.equal(errorOf(outOfScope), JSON.parse(JSON.stringify(errorOf(absent)).replaceAll(missing, hidden)), `${method} ${path(hidden)}`);
    }
    // A fan-out to an application the caller may not see reaches nobody, exactly as one to an unknown application.
    const fanOut = await call('GET', `${tk.url}/applications/orders/actuator/health`, { headers: as('alice') });
    const fanOutToNobody = await call('GET', `${tk.url}/applications/no-such-app/actuator/health`, { headers: as('root') });
    assert.equal([fanOut.status, fanOut.json], [200, []]);
    assert.equal([fanOutToNobody.status, fanOutToNobody.json], [200, []]);
    // The SSE form of GET /instances/{id} too.
    const stream = await call('GET', `${tk.url}/instances/${id}`, { headers: { ...as('alice'), accept: 'text/event-stream' } });
    assert.equal(errorOf(stream), { status: 404, body: { status: 404, error: 'Not Found', message: `instance ${id} not found`, path: `/instances/${id}` } });
    // Writes too, and nothing changed.
    for (const [method, path] of [['DELETE', `/instances/${id}`], ['DELETE', '/applications/orders']] as const) {
      const reply = await call(method, `${tk.url}${path}`, { headers: as('alice') });
      assert.is(reply.status, 404, `${method} ${path}`);
    }
    assert.is(tk.kernel.registry.get(id)?.registered, true);
    assert.equal(orders.requestsTo('/health'), [], 'the proxy called nobody');
  } finally {
    await tk.stop();
    await orders.close();
  }
});

test('a role too weak for the action: 403 naming the action; strong enough: the handler runs', async () => {
  const tk = await accessKernel();
  const payments = await FakeActuator.start();
  try {
    const id = await registerAt(tk, 'payments-api', payments);
    const refused = async (user: string, method: string, path: string, action: string, needs: string, role: string) => {
      const reply = await call(method, `${tk.url}${path}`, { headers: as(user), ...(method === 'POST' ? { json: {} } : {}) });
      assert.equal(errorOf(reply), {
        status: 403,
        body: { status: 403, error: 'Forbidden', message: `action "${action}" is not permitted to ${user} (${role}); it needs role ${needs}${needs === 'admin' && action.startsWith('actuator') ? ' (a sensitive or admin endpoint)' : ''}`, path },
      }, `${user} ${method} ${path}`);
    };
    // bob views payments-*: reads pass, writes are refused.
    assert.is((await call('GET', `${tk.url}/instances/${id}`, { headers: as('bob') })).status, 200);
    assert.is((await call('GET', `${tk.url}/instances/${id}/actuator/health`, { headers: as('bob') })).status, 200);
    await refused('bob', 'POST', `/instances/${id}/actuator/loggers/ROOT`, 'actuator.write', 'operator', 'role viewer');
    await refused('bob', 'DELETE', `/instances/${id}`, 'instances.deregister', 'operator', 'role viewer');
    await refused('bob', 'POST', '/applications', 'applications.refresh', 'operator', 'role viewer');
    // alice operates payments-*: writes pass the check (the endpoint is not detected: the proxy's own 404), admin endpoints and sensitive reads do not.
    const write = await call('POST', `${tk.url}/instances/${id}/actuator/loggers/ROOT`, { headers: as('alice'), json: {} });
    assert.equal(errorOf(write).body.message, `Endpoint 'loggers' not found for instance ${id}`);
    await refused('alice', 'POST', `/instances/${id}/actuator/shutdown`, 'actuator.write', 'admin', 'role operator');
    await refused('alice', 'GET', `/instances/${id}/actuator/heapdump`, 'actuator.read', 'admin', 'role operator');
    // root is admin: the sensitive read reaches the proxy (which knows no such endpoint here).
    assert.equal(errorOf(await call('GET', `${tk.url}/instances/${id}/actuator/heapdump`, { headers: as('root') })).body.message, `Endpoint 'heapdump' not found for instance ${id}`);
    // nobody has no grant at all: every action is refused, and says so.
    await refused('nobody', 'GET', '/instances', 'instances.read', 'viewer', 'no role');
    assert.equal(payments.requestsTo('/loggers'), [], 'no write reached the instance');
    // alice deregisters an instance of hers.
    assert.is((await call('DELETE', `${tk.url}/instances/${id}`, { headers: as('alice') })).status, 204);
    assert.is(tk.kernel.registry.get(id)?.registered, false);
  } finally {
    await tk.stop();
    await payments.close();
  }
});

test('an instance the caller sees but may not act on is 403, not 404', async () => {
  const tk = await accessKernel({
    access: { grants: [{ subjects: ['*'], role: 'viewer' }, { subjects: ['user:alice'], role: 'operator', applications: ['payments-*'] }] },
  });
  try {
    const id = await registerAt(tk, 'orders', { origin: 'http://127.0.0.1:1' });
    const reply = await call('DELETE', `${tk.url}/instances/${id}`, { headers: as('alice') });
    assert.equal(errorOf(reply), { status: 403, body: { status: 403, error: 'Forbidden', message: 'action "instances.deregister" is not permitted to alice on application orders', path: `/instances/${id}` } });
    // "*" is every signed-in person and token, not a machine credential.
    assert.is((await call('GET', `${tk.url}/instances`, { headers: bearer('orders-view-token') })).status, 200);
    assert.is((await call('GET', `${tk.url}/instances`, { headers: as('client') })).status, 403);
  } finally {
    await tk.stop();
  }
});

test('machine roles keep exactly their paths: registration registers and deregisters, nothing else, letter for letter', async () => {
  for (const contextPath of ['', '/admin']) {
    const tk = await accessKernel({ 'context-path': contextPath });
    try {
      const headers = as('client');
      const registered = await call('POST', `${tk.url}/instances`, { headers, json: { name: 'payments-api', healthUrl: 'http://127.0.0.1:1/actuator/health' } });
      assert.is(registered.status, 201);
      const { id } = registered.json as { id: string };
      for (const [method, path] of [
        ['GET', '/instances'], ['GET', `/instances/${id}`], ['POST', `/instances/${id}`], ['DELETE', '/instances'],
        ['GET', `/instances/${id}/actuator/health`], ['POST', `/instances/${id}/actuator/shutdown`], ['DELETE', '/applications/payments-api'],
        ['POST', '/applications'], ['GET', '/applications'], ['PUT', '/instances'], ['POST', '/instances/'], ['HEAD', '/instances'],
        ['OPTIONS', '/instances'], ['DELETE', `/instances/${id}/`], ['GET', '/access/me'],
      ] as const) {
        const reply = await call(method, `${tk.url}${path}`, { headers, ...(method === 'POST' || method === 'PUT' ? { json: {} } : {}) });
        assert.is(reply.status, 403, `${method} ${contextPath}${path}`);
      }
      assert.is(tk.kernel.registry.get(id)?.registered, true);
      assert.is((await call('DELETE', `${tk.url}/instances/${id}`, { headers })).status, 204);
    } finally {
      await tk.stop();
    }
  }
});

test.run();
