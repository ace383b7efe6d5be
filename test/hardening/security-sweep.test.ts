import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HttpMethod } from '../../core/plugin-api.js';
import { createJsonViews } from '../../core/kits/views/index.js';
import { replayFrames } from '../../plugins/sse/replay.js';
import type { Topic } from '../../plugins/sse/topic.js';
import { DEFAULT_APP_FOLDER } from '../../plugins/ui/app-folder.js';
import { call } from '../support/http.js';
import { FakeActuator } from '../support/fake-actuator.js';
import { capture, type Captured } from './support/capture.js';
import { ADMIN, ALLOWED_ORIGIN, CLIENT, TOKEN, basic, startFullKernel, type FullKernel, type Route } from './support/full-kernel.js';

/**
 * With basic-auth on, every route the router holds (read from the router itself, so a route
 * added later is swept too), every method and every kind of client must be refused without
 * valid credentials; and no secret, from the config or from an instance's metadata, may come
 * back in any response, header or log line.
 */

const ACCEPTS = ['application/json', 'text/event-stream', 'text/html'] as const;
const CHALLENGE = 'Basic realm="Vigil", charset="UTF-8"';
const BEARER_CHALLENGE = 'Bearer realm="Vigil", error="invalid_token"';
const WITH_BODY = new Set<string>(['POST', 'PUT', 'PATCH']);
/** The endpoint the proxy routes' `*` stands for: the monitor never calls it, so any call to it came through the proxy. */
const PROXIED = 'env';
/** Fewer than this many routes means the table was not read after every plugin set up. */
const MIN_ROUTES = 40;

interface Target {
  readonly id: string;
  readonly name: string;
}

/** The route's path with real values: an instance id, an application name, a detected endpoint, a dashboard file. */
function concrete(route: Route, contextPath: string, target: Target): string {
  const below = route.path.slice(contextPath.length);
  const asset = below.startsWith('/ui/') ? firstAsset() : PROXIED;
  return route.path.replace(':id', target.id).replace(':name', target.name).replace(/\*$/, asset);
}

/** Every file of the built dashboard, as the URL path that would serve it (below the context path). */
function dashboardFiles(): string[] {
  const files: string[] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (entry.isDirectory()) walk(join(folder, entry.name));
      else files.push(`/${relative(DEFAULT_APP_FOLDER, join(folder, entry.name)).split('\\').join('/')}`);
    }
  };
  walk(DEFAULT_APP_FOLDER);
  return files.map((file) => (file === '/index.html' ? '/' : file)).sort();
}

function firstAsset(): string {
  const asset = dashboardFiles().find((file) => /^\/ui\/app-[^/]+\.js$/.test(file));
  if (!asset) throw new Error(`no app bundle in ${DEFAULT_APP_FOLDER}; run npm run build`);
  return asset.slice('/ui/'.length);
}

/** The distinct method/path pairs of the table (a stream route and its JSON twin share one). */
function distinct(routes: readonly Route[]): Route[] {
  const seen = new Map<string, Route>();
  for (const route of routes) seen.set(`${route.method} ${route.path}`, route);
  return [...seen.values()];
}

function bodyFor(method: string): { body?: string; headers: Record<string, string> } {
  return WITH_BODY.has(method)
    ? { body: '{"name":"x","healthUrl":"http://127.0.0.1:2/health"}', headers: { 'content-type': 'application/json' } }
    : { headers: {} };
}

function header(reply: Captured, name: string): string[] {
  return reply.headerLines.filter(([key]) => key.toLowerCase() === name).map(([, value]) => value);
}

/** The contract's JSON error body with `status` and `message` for `path`; no body at all for HEAD. */
function assertError(reply: Captured, method: string, path: string, status: number, message: RegExp, label: string): void {
  assert.is(reply.status, status, `${label}: ${reply.body.toString()}`);
  assert.equal(header(reply, 'content-type'), ['application/json'], label);
  if (method === 'HEAD') {
    assert.is(reply.body.length, 0, label);
    return;
  }
  const body = JSON.parse(reply.body.toString()) as Record<string, unknown>;
  assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp'], label);
  assert.is(body.status, status, label);
  assert.match(String(body.message), message, label);
  assert.is(body.path, path.split('?')[0], label);
}

/** Registers the instance through the API with admin credentials and waits until the monitor detected its endpoints. */
async function registerDetected(full: FullKernel, fake: FakeActuator, name: string, metadata: Record<string, string>, authorization: string): Promise<Target> {
  const reply = await call('POST', `${full.tk.url}/instances`, { json: fake.registration(name, { metadata }), headers: { authorization } });
  assert.is(reply.status, 201, reply.text);
  const { id } = reply.json as { id: string };
  await full.tk.waitForEvent((event) => event.instance === id && event.type === 'ENDPOINTS_DETECTED', `endpoints of ${name}`, 10_000);
  await full.tk.waitForEvent((event) => event.instance === id && event.type === 'STATUS_CHANGED', `status of ${name}`, 10_000);
  return { id, name };
}

function fakeWithProxiedEndpoint(): Promise<FakeActuator> {
  return FakeActuator.start({ links: ['health', 'info', PROXIED] }).then((fake) => {
    for (const method of ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      fake.on(method, `/${PROXIED}`, { json: { activeProfiles: [], propertySources: [] } });
    }
    return fake;
  });
}

for (const contextPath of ['', '/admin']) {
  test(`every route of the router refuses a request without valid credentials (context path "${contextPath}")`, async () => {
    const full = await startFullKernel({ 'context-path': contextPath });
    const fake = await fakeWithProxiedEndpoint();
    try {
      const target = await registerDetected(full, fake, 'shop', {}, basic(ADMIN.username, ADMIN.password));
      const routes = distinct(full.routes);
      // A sweep of an empty or partial table would prove nothing.
      assert.ok(routes.length >= MIN_ROUTES, `only ${routes.length} routes in the table`);
      const methods = new Set(routes.map((route) => route.method));
      assert.equal([...methods].sort(), ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'] satisfies HttpMethod[]);
      for (const path of ['/instances', '/instances/events', '/instances/:id/events', '/applications/events', '/instances/:id/actuator/*', '/applications/:name/actuator/*', '/', '/ui/*']) {
        assert.ok(routes.some((route) => route.path === (path === '/' && contextPath ? contextPath : `${contextPath}${path}`)), `${path} is in the table`);
      }

      let requests = 0;
      for (const route of routes) {
        const path = concrete(route, contextPath, target);
        const { body, headers } = bodyFor(route.method);
        // A registration-role client may register and deregister, and nothing else.
        const registrationMay = (route.method === 'POST' && route.path === `${contextPath}/instances`)
          || (route.method === 'DELETE' && route.path === `${contextPath}/instances/:id`);
        // Its permitted requests go where they change nothing: an invalid registration, an unknown id.
        const clientPath = registrationMay && route.method === 'DELETE' ? path.replace(target.id, 'ffffffffffff') : path;
        const clientBody = registrationMay && route.method === 'POST' ? '{}' : body;
        await Promise.all(ACCEPTS.flatMap((accept) => {
          const label = `${route.method} ${path} (${accept})`;
          const send = (extra: Record<string, string>, sendPath = path, sendBody = body) => {
            requests += 1;
            return capture(full.port, { method: route.method, path: sendPath, headers: { accept, ...headers, ...extra }, ...(sendBody === undefined ? {} : { body: sendBody }) });
          };
          return [
            send({}).then((reply) => {
              assertError(reply, route.method, path, 401, /^authentication required$/, `${label} without credentials`);
              assert.equal(header(reply, 'www-authenticate'), [CHALLENGE], label);
            }),
            // From a page of the allowed origin: refused all the same (with the CORS headers that let it read why).
            send({ origin: ALLOWED_ORIGIN }).then((reply) => {
              assertError(reply, route.method, path, 401, /^authentication required$/, `${label} cross-origin without credentials`);
              assert.equal(header(reply, 'access-control-allow-origin'), [ALLOWED_ORIGIN], label);
            }),
            send({ authorization: basic(ADMIN.username, `${ADMIN.password}x`) }).then((reply) => {
              assertError(reply, route.method, path, 401, /^bad credentials$/, `${label} with a wrong password`);
              assert.equal(header(reply, 'www-authenticate'), [CHALLENGE], label);
            }),
            send({ authorization: `Bearer ${TOKEN}x` }).then((reply) => {
              assertError(reply, route.method, path, 401, /^bad credentials$/, `${label} with a wrong token`);
              assert.equal(header(reply, 'www-authenticate'), [CHALLENGE, BEARER_CHALLENGE], label);
            }),
            send({ authorization: basic(CLIENT.username, CLIENT.password) }, clientPath, clientBody).then((reply) => {
              if (!registrationMay) {
                assertError(reply, route.method, path, 403, /^role "registration" may only register \(POST .*\/instances\) and deregister/, `${label} as the registration client`);
              } else if (route.method === 'POST') {
                assertError(reply, route.method, clientPath, 400, /^invalid registration: /, `${label} as the registration client`);
              } else {
                assertError(reply, route.method, clientPath, 404, /^instance ffffffffffff not found$/, `${label} as the registration client`);
              }
            }),
          ];
        }));
      }
      // CORS preflights are answered before authentication, as browsers send them without
      // credentials: with headers only, never by the route (the proxied endpoint is checked below).
      for (const route of routes) {
        const path = concrete(route, contextPath, target);
        const preflight = await capture(full.port, { method: 'OPTIONS', path, headers: { origin: ALLOWED_ORIGIN, 'access-control-request-method': route.method } });
        requests += 1;
        assert.is(preflight.status, 204, `preflight of ${route.method} ${path}`);
        assert.is(preflight.body.length, 0, `preflight of ${route.method} ${path}`);
        assert.equal(header(preflight, 'access-control-allow-origin'), [ALLOWED_ORIGIN], `preflight of ${route.method} ${path}`);
      }
      // Paths no route holds are refused the same way (not answered 404 to strangers).
      for (const path of ['/nope', `/instances/${target.id}/nope`, '/index.html', '/ui/', '/ui/missing.js', '/ui/../index.html']) {
        const reply = await capture(full.port, { method: 'GET', path: `${contextPath}${path}`, headers: { accept: 'text/html' } });
        assertError(reply, 'GET', `${contextPath}${path}`, 401, /^authentication required$/, `unrouted ${path}`);
        requests += 1;
      }

      // Nothing got through: no registration, no deregistration, no proxied call.
      assert.equal(full.tk.kernel.registry.list().map((instance) => instance.id), [target.id]);
      assert.equal(full.tk.kernel.registry.events().filter((event) => event.type === 'DEREGISTERED' || event.type === 'REGISTRATION_UPDATED'), []);
      assert.equal(fake.requestsTo(`/${PROXIED}`), []);
      // While the same substituted path with credentials does reach the instance.
      const through = await call('GET', `${full.tk.url}/instances/${target.id}/actuator/${PROXIED}`, { headers: { authorization: `Bearer ${TOKEN}` } });
      assert.is(through.status, 200, through.text);
      assert.is(fake.requestsTo(`/${PROXIED}`).length, 1);
      console.log(`  security sweep (context path "${contextPath}"): ${routes.length} routes (${full.routes.length} table entries), ${requests} requests refused or answered as a preflight`);
    } finally {
      await full.tk.stop();
      await fake.close();
    }
  });
}

test('every file of the dashboard refuses a request without credentials, and is served with them', async () => {
  const full = await startFullKernel();
  try {
    const files = dashboardFiles();
    assert.ok(files.includes('/'), 'the page');
    assert.ok(files.filter((file) => file.startsWith('/ui/')).length >= 3, `assets: ${files.join(', ')}`);
    for (const file of files) {
      for (const method of ['GET', 'HEAD']) {
        for (const accept of ACCEPTS) {
          const reply = await capture(full.port, { method, path: file, headers: { accept } });
          assertError(reply, method, file, 401, /^authentication required$/, `${method} ${file} (${accept})`);
        }
      }
      // Precompressed twins are sirv's to pick, not to be asked for by name.
      if (/\.(gz|br)$/.test(file)) continue;
      const served = await capture(full.port, { method: 'GET', path: file, headers: { accept: 'text/html', authorization: basic(ADMIN.username, ADMIN.password) } });
      assert.is(served.status, 200, file);
      assert.ok(served.body.length > 0, file);
    }
  } finally {
    await full.tk.stop();
  }
});

/** A secret of each kind, unique text so a leak can be searched for. */
const META = {
  user: 'meta-user',
  userPassword: 'meta-userpw-Q81xz3',
  password: 'meta-password-L02kd9',
  secret: 'meta-secret-V77ab1',
  token: 'meta-token-H55pp0',
};
const DEFAULT_AUTH = { user: 'fallback', password: 'instance-default-pw-Z4c81e' };

/** Every secret and the encodings it would travel in: plain, and as the base64 of Basic credentials. */
function secrets(): Map<string, string> {
  const base64 = (user: string, password: string) => Buffer.from(`${user}:${password}`).toString('base64');
  return new Map([
    ['admin password', ADMIN.password],
    ['client password', CLIENT.password],
    ['bearer token', TOKEN],
    ['metadata user.password', META.userPassword],
    ['metadata password', META.password],
    ['metadata secret', META.secret],
    ['metadata token', META.token],
    ['instance-auth default password', DEFAULT_AUTH.password],
    ['admin Basic credentials', base64(ADMIN.username, ADMIN.password)],
    ['client Basic credentials', base64(CLIENT.username, CLIENT.password)],
    ['metadata Basic credentials', base64(META.user, META.userPassword)],
    ['instance-auth Basic credentials', base64(DEFAULT_AUTH.user, DEFAULT_AUTH.password)],
  ]);
}

/** What a client sends Vigil, never to be passed on to an instance. */
const CALLER_SECRETS = ['admin password', 'client password', 'bearer token', 'admin Basic credentials', 'client Basic credentials'];

/** The topic a stream route serves, to know which `id:` ends its replay; undefined for routes that are no stream. */
function topicOf(route: Route, contextPath: string, target: Target): Topic | undefined {
  if (route.method !== 'GET') return undefined;
  const below = route.path.slice(contextPath.length);
  if (below === '/instances/events') return { kind: 'events' };
  if (below === '/instances/:id') return { kind: 'instance-snapshots', id: target.id };
  if (below === '/instances/:id/events') return { kind: 'instance', id: target.id };
  if (below === '/applications' || below === '/applications/events') return { kind: 'applications' };
  return undefined;
}

test('no secret from the config or from metadata appears in any response, header or log line', async () => {
  const full = await startFullKernel({ 'instance-auth': { 'default-user-name': DEFAULT_AUTH.user, 'default-password': DEFAULT_AUTH.password } });
  const withMetadata = await fakeWithProxiedEndpoint();
  const withDefaults = await fakeWithProxiedEndpoint();
  const replies: { label: string; reply: Captured }[] = [];
  try {
    const { tk } = full;
    const admin = { authorization: basic(ADMIN.username, ADMIN.password) };
    // One registered by an admin with its own credentials in the metadata, one by the registration client with none.
    const vaultMetadata = {
      'user.name': META.user,
      'user.password': META.userPassword,
      password: META.password,
      secret: META.secret,
      token: META.token,
      region: 'eu-1',
    };
    const vault = await registerDetected(full, withMetadata, 'vault', vaultMetadata, admin.authorization);
    const plain = await registerDetected(full, withDefaults, 'plain', { region: 'eu-2' }, basic(CLIENT.username, CLIENT.password));
    // Re-registering unchanged (the client heartbeat) is part of the sweep too.
    const registrations = new Map([
      [vault.id, withMetadata.registration(vault.name, { metadata: vaultMetadata })],
      [plain.id, withDefaults.registration(plain.name, { metadata: { region: 'eu-2' } })],
    ]);

    const views = createJsonViews([]);
    const untilId = (topic: Topic) => Math.max(...replayFrames(topic, 0, tk.kernel.registry, views).map((replayed) => replayed.seq));
    const routes = distinct(full.routes);
    const sweep = async (target: Target, only: (route: Route) => boolean) => {
      for (const route of routes.filter(only)) {
        const path = concrete(route, '', target);
        const topic = topicOf(route, '', target);
        for (const accept of ACCEPTS) {
          // The bearer token on one Accept in three: both kinds of credentials are in play.
          const authorization = accept === 'text/html' ? { authorization: `Bearer ${TOKEN}` } : admin;
          const body = route.method === 'POST' && route.path === '/instances'
            ? JSON.stringify(registrations.get(target.id))
            : WITH_BODY.has(route.method) ? '{"configuredLevel":"DEBUG"}' : undefined;
          const reply = await capture(full.port, {
            method: route.method,
            path,
            headers: { accept, 'last-event-id': '0', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...authorization },
            ...(body === undefined ? {} : { body }),
            ...(topic ? { streamUntilId: untilId(topic) } : {}),
            // The audit trail's stream replays every entry held (any id ends the read; the sweep's own writes are held).
            ...(route.method === 'GET' && route.path === '/audit' ? { streamUntilId: 1 } : {}),
          });
          assert.ok(reply.status !== 401 && reply.status !== 403, `${route.method} ${path} (${accept}): ${reply.status}`);
          replies.push({ label: `${route.method} ${path} (${accept})`, reply });
        }
      }
    };
    // Everything that reads or calls, for both instances; then what removes them.
    for (const target of [vault, plain]) await sweep(target, (route) => route.method !== 'DELETE' || /\/actuator/.test(route.path));
    await sweep(vault, (route) => route.path === '/instances/:id' && route.method === 'DELETE');
    await sweep(plain, (route) => route.path === '/applications/:name' && route.method === 'DELETE');
    assert.ok(tk.kernel.registry.list().length === 0, 'both were deregistered by the sweep');
    // The history still holds both registrations, metadata and all.
    for (const path of ['/instances/events', '/applications']) {
      for (const accept of ['application/json', 'text/event-stream']) {
        const topic = topicOf({ method: 'GET', path }, '', vault)!;
        replies.push({ label: `GET ${path} (${accept}) after deregistration`, reply: await capture(full.port, { method: 'GET', path, headers: { accept, 'last-event-id': '0', ...admin }, streamUntilId: untilId(topic) }) });
      }
    }
    // The audit trail holds every write of the sweep (proxied bodies included): none of it may carry a secret.
    if (routes.some((route) => route.path === '/audit')) {
      for (const accept of ['application/json', 'text/event-stream']) {
        replies.push({ label: `GET /audit (${accept}) after the sweep`, reply: await capture(full.port, { method: 'GET', path: '/audit?limit=1000', headers: { accept, 'last-event-id': '0', ...admin }, streamUntilId: 1 }) });
      }
    }

    // The sweep did read the instances, the streams and the proxy, and the secrets were in use.
    const streams = replies.filter(({ reply }) => header(reply, 'content-type').some((type) => type.startsWith('text/event-stream')));
    assert.ok(streams.length >= 10, `${streams.length} streams read`);
    assert.ok(replies.some(({ label, reply }) => label.startsWith('GET /instances/events') && reply.body.includes('"registration"') && reply.body.includes('******')), 'the metadata was shown, masked');
    assert.ok(replies.filter(({ label, reply }) => label.includes(`/actuator/${PROXIED}`) && reply.status === 200).length >= 8, 'proxied calls answered');
    const authorizationOf = (fake: FakeActuator) => new Set(fake.requests.map((request) => request.headers.authorization));
    assert.equal([...authorizationOf(withMetadata)], [`Basic ${Buffer.from(`${META.user}:${META.userPassword}`).toString('base64')}`], 'the metadata credentials on every call');
    assert.equal([...authorizationOf(withDefaults)], [`Basic ${Buffer.from(`${DEFAULT_AUTH.user}:${DEFAULT_AUTH.password}`).toString('base64')}`], 'the default credentials on every call');
    assert.ok(withMetadata.requestsTo(`/${PROXIED}`).length >= 8 && withDefaults.requestsTo(`/${PROXIED}`).length >= 8, 'both were called through the proxy');

    const logs = tk.logs();
    assert.ok(logs.length > 50, `${logs.length} log lines`);
    const found: string[] = [];
    for (const [what, secret] of secrets()) {
      for (const { label, reply } of replies) {
        if (reply.headerLines.some(([name, value]) => name.includes(secret) || value.includes(secret))) found.push(`${what} in a header of ${label}`);
        if (reply.body.includes(secret)) found.push(`${what} in the body of ${label}`);
      }
      for (const line of logs) if (line.includes(secret)) found.push(`${what} in the log line ${line}`);
    }
    // Nor do the caller's own credentials travel on to an instance.
    for (const [what, secret] of secrets()) {
      if (!CALLER_SECRETS.includes(what)) continue;
      for (const fake of [withMetadata, withDefaults]) {
        for (const request of fake.requests) {
          if (JSON.stringify(request.headers).includes(secret) || request.url.includes(secret)) found.push(`${what} sent to the instance in ${request.method} ${request.url}`);
        }
      }
    }
    assert.equal(found, []);
    console.log(`  leak check: ${replies.length} responses (${streams.length} streams), ${logs.length} log lines, ${withMetadata.requests.length + withDefaults.requests.length} calls to instances; ${secrets().size} secrets searched`);
  } finally {
    await full.tk.stop();
    await withMetadata.close();
    await withDefaults.close();
  }
});

test.run();
