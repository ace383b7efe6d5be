import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, brotliDecompressSync } from 'node:zlib';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_PLUGINS } from '../../../config/defaults.js';
import { startTestKernel, type TestKernel } from '../../../bin/testing.js';
import { DEFAULT_APP_FOLDER } from '../../../plugins/ui/app-folder.js';
import { createUiPlugin } from '../../../plugins/ui/index.js';
import { call } from '../../support/http.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const PAGE = readFileSync(join(DEFAULT_APP_FOLDER, 'index.html'), 'utf8');
/** The assets the built page links, e.g. `ui/app-3F2KQ7ZA.js`. */
const LINKED = [...PAGE.matchAll(/(?:src|href)="(ui\/[^"]+)"/g)].map((match) => match[1]!);

async function withKernel(run: (tk: TestKernel) => Promise<void>, config: Record<string, unknown> = {}, plugins: string[] = ['rest-api', 'sse', 'ui']): Promise<void> {
  const tk = await startTestKernel({ plugins, config });
  try {
    await run(tk);
  } finally {
    await tk.stop();
  }
}

test('the built page links a script, a stylesheet, an icon and the script\'s first chunks, all under ui/', () => {
  const own = LINKED.filter((path) => !/^ui\/chunk-/.test(path));
  assert.equal(own.map((path) => path.replace(/-[A-Z0-9]{8}\./, '-HASH.')).sort(), ['ui/app-HASH.js', 'ui/favicon.svg', 'ui/style-HASH.css']);
  for (const chunk of LINKED.filter((path) => /^ui\/chunk-/.test(path))) assert.match(PAGE, `<link rel="modulepreload" href="${chunk}">`);
  assert.not.match(PAGE, /https?:\/\//, 'no CDN: nothing is loaded from another origin');
});

test('GET / serves the dashboard page to a browser, with a strict content policy', () => withKernel(async (tk) => {
  const res = await call('GET', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(res.status, 200);
  assert.is(res.headers.get('content-type'), 'text/html;charset=utf-8');
  assert.is(res.text, PAGE);
  assert.is(res.headers.get('cache-control'), 'no-cache');
  assert.equal(res.headers.get('vary')?.split(', ').sort(), ['Accept', 'Accept-Encoding']);
  assert.is(res.headers.get('x-content-type-options'), 'nosniff');
  assert.match(res.headers.get('content-security-policy') ?? '', "default-src 'self'");
  assert.match(res.headers.get('content-security-policy') ?? '', "connect-src 'self'");

  for (const accept of [undefined, '*/*', 'text/html', 'application/json, text/html;q=0.5']) {
    const other = await call('GET', `${tk.url}/`, accept ? { headers: { accept } } : {});
    assert.is(other.status, 200, `Accept: ${accept}`);
    assert.is(other.text, PAGE, `Accept: ${accept}`);
  }
  const head = await call('HEAD', `${tk.url}/`);
  assert.is(head.status, 200);
  assert.is(head.text, '');
  assert.is(head.headers.get('content-length'), String(Buffer.byteLength(PAGE)));
}));

test('every answer of the dashboard carries its security headers, and Vary: Origin survives with cors', () => withKernel(async (tk) => {
  const asset = LINKED.find((path) => path.endsWith('.js'))!;
  const answers = [
    await call('GET', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT, origin: 'https://ops.example.com' } }),
    await call('GET', `${tk.url}/${asset}`, { headers: { origin: 'https://evil.example' } }),
    await call('GET', `${tk.url}/ui/no-such-file.js`),
    await call('GET', `${tk.url}/`, { headers: { accept: 'application/json' } }),
  ];
  assert.equal(answers.map((res) => res.status), [200, 200, 404, 406]);
  for (const res of answers) {
    assert.match(res.headers.get('content-security-policy') ?? '', "default-src 'self'");
    assert.is(res.headers.get('x-content-type-options'), 'nosniff');
    assert.is(res.headers.get('referrer-policy'), 'no-referrer');
    assert.ok(res.headers.get('vary')?.split(', ').includes('Origin'), `Vary: ${res.headers.get('vary')}`);
  }
  assert.equal(answers[0]!.headers.get('vary')?.split(', ').sort(), ['Accept', 'Accept-Encoding', 'Origin']);
}, { cors: { 'allowed-origins': 'https://ops.example.com' } }, ['rest-api', 'sse', 'cors', 'ui']));

test('a client asking for JSON never gets the page: 406 with a JSON error naming the API', () => withKernel(async (tk) => {
  for (const accept of ['application/json', 'application/vnd.spring-boot.actuator.v3+json', 'application/json, */*', 'text/html;q=0, application/json']) {
    const res = await call('GET', `${tk.url}/`, { headers: { accept } });
    assert.is(res.status, 406, `Accept: ${accept}`);
    assert.is(res.headers.get('content-type'), 'application/json');
    assert.equal(res.headers.get('vary')?.split(', ').sort(), ['Accept']);
    const body = res.json as Record<string, unknown>;
    assert.equal(Object.keys(body).sort(), ['error', 'message', 'path', 'status', 'timestamp']);
    assert.equal({ ...body, timestamp: 0 }, {
      timestamp: 0, status: 406, error: 'Not Acceptable', path: '/',
      message: 'this is the dashboard, an HTML page; the JSON API is at /applications and /instances',
    });
  }
  // The API itself is untouched by the dashboard.
  const apps = await call('GET', `${tk.url}/applications`, { headers: { accept: 'application/json' } });
  assert.is(apps.status, 200);
  assert.equal(apps.json, []);
  const unknown = await call('GET', `${tk.url}/dashboard`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(unknown.status, 404);
  assert.is(unknown.headers.get('content-type'), 'application/json');
}));

test('assets: the right type, cached for good when hashed, compressed when asked, revalidated by ETag', () => withKernel(async (tk) => {
  const types: Record<string, string> = { js: 'text/javascript', css: 'text/css', svg: 'image/svg+xml' };
  for (const path of LINKED) {
    const file = readFileSync(join(DEFAULT_APP_FOLDER, path));
    const plain = await fetch(`${tk.url}/${path}`, { headers: { 'accept-encoding': 'identity' } });
    assert.is(plain.status, 200, path);
    assert.is(plain.headers.get('content-type'), types[path.split('.').pop()!], path);
    assert.ok(Buffer.from(await plain.arrayBuffer()).equals(file), `${path} is served as built`);
    assert.is(plain.headers.get('cache-control'), path.endsWith('.svg') ? 'no-cache' : 'public, max-age=31536000, immutable', path);

    const etag = plain.headers.get('etag')!;
    const again = await fetch(`${tk.url}/${path}`, { headers: { 'if-none-match': etag, 'accept-encoding': 'identity' } });
    assert.is(again.status, 304, path);
  }
  // fetch() would decode the body itself: read the raw bytes with node:http semantics instead.
  const script = LINKED.find((path) => path.endsWith('.js'))!;
  const original = readFileSync(join(DEFAULT_APP_FOLDER, script));
  for (const [encoding, decode] of [['gzip', gunzipSync], ['br', brotliDecompressSync]] as const) {
    const raw = await rawGet(`${tk.url}/${script}`, { 'accept-encoding': encoding });
    assert.is(raw.headers['content-encoding'], encoding);
    assert.ok(decode(raw.body).equals(original), `${encoding} body decodes to the script`);
  }
}));

test('unknown asset paths are JSON 404s, and nothing outside the asset folder is reachable', () => withKernel(async (tk) => {
  // Sent byte for byte (fetch would resolve the dots before sending).
  for (const path of ['/ui/nope.js', '/ui/', '/ui/index.html', '/ui/../index.html', '/ui/%2e%2e/index.html', '/ui/..%2findex.html', '/ui/favicon.svg/../../index.html', '/ui/../../package.json']) {
    const res = await rawGet(`${tk.url}${path}`, { accept: BROWSER_ACCEPT });
    assert.is(res.status, 404, path);
    assert.is(res.headers['content-type'], 'application/json', path);
  }
  const post = await call('POST', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(post.status, 404);
}));

test('under a context path the page is at /admin/, /admin redirects there, assets follow', () => withKernel(async (tk) => {
  assert.match(tk.url, /\/admin$/);
  const page = await call('GET', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(page.status, 200);
  assert.is(page.text, PAGE);
  const bare = await fetch(`${tk.url}?x=1`, { redirect: 'manual', headers: { accept: BROWSER_ACCEPT } });
  assert.is(bare.status, 308);
  assert.is(bare.headers.get('location'), '/admin/?x=1');
  for (const path of LINKED) assert.is((await call('GET', `${tk.url}/${path}`)).status, 200, path);
  const json = await call('GET', `${tk.url}/`, { headers: { accept: 'application/json' } });
  assert.is(json.status, 406);
  assert.match((json.json as { message: string }).message, 'at /admin/applications and /admin/instances');
  const root = await call('GET', `${new URL(tk.url).origin}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(root.status, 404);
  assert.is(root.headers.get('content-type'), 'application/json');
}, { 'context-path': '/admin' }));

test('behind basic-auth the page and its assets need credentials; the challenge lets a browser ask for them', () => withKernel(async (tk) => {
  const refused = await call('GET', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT } });
  assert.is(refused.status, 401);
  assert.is(refused.headers.get('www-authenticate'), 'Basic realm="Vigil", charset="UTF-8"');
  assert.is(refused.headers.get('content-type'), 'application/json');
  assert.not.match(refused.text, '<html');
  for (const path of LINKED) assert.is((await call('GET', `${tk.url}/${path}`)).status, 401, path);

  const authorization = `Basic ${Buffer.from('admin:ui-Secret').toString('base64')}`;
  const page = await call('GET', `${tk.url}/`, { headers: { accept: BROWSER_ACCEPT, authorization } });
  assert.is(page.status, 200);
  assert.is(page.text, PAGE);
  for (const path of LINKED) assert.is((await call('GET', `${tk.url}/${path}`, { headers: { authorization } })).status, 200, path);
}, { 'basic-auth': { users: [{ username: 'admin', password: 'ui-Secret' }] } }, ['rest-api', 'sse', 'basic-auth', 'ui']));

test('ui is in the default plugin list, and needs rest-api and sse', async () => {
  assert.ok((DEFAULT_PLUGINS as readonly string[]).includes('ui'));
  const config = readFileSync(new URL('../../../../registry.config.yaml', import.meta.url), 'utf8');
  assert.match(config, /^ {2}- ui\b/m, 'registry.config.yaml lists ui');
  try {
    await startTestKernel({ plugins: ['rest-api', 'ui'] });
    assert.unreachable('ui without sse must not start');
  } catch (error) {
    assert.match(String((error as Error).message), /ui.*sse|sse.*ui/s);
  }
});

test('a missing or broken build stops start-up with the fix named', async () => {
  const empty = mkdtempSync(join(tmpdir(), 'vigil-ui-empty-'));
  const paged = mkdtempSync(join(tmpdir(), 'vigil-ui-paged-'));
  try {
    await assertStartFails(createUiPlugin(join(empty, 'missing')), /the dashboard is not built: .*index\.html and .*ui missing; run `npm run build`/);
    writeFileSync(join(paged, 'index.html'), '<!doctype html>');
    mkdirSync(join(paged, 'ui'));
    writeFileSync(join(paged, 'ui', 'other.html'), '<!doctype html>');
    await assertStartFails(createUiPlugin(paged), /asset folder must not hold pages: other\.html/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
    rmSync(paged, { recursive: true, force: true });
  }
});

async function assertStartFails(plugin: ReturnType<typeof createUiPlugin>, message: RegExp): Promise<void> {
  let failure: unknown;
  try {
    const tk = await startTestKernel({ plugins: ['rest-api', 'sse', plugin as never] });
    await tk.stop();
  } catch (error) {
    failure = error;
  }
  assert.ok(failure, 'start-up failed');
  assert.match(String((failure as Error).message), message);
}

/** A GET whose path goes out exactly as written and whose body stays as sent (no decoding). */
async function rawGet(url: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }> {
  const { request } = await import('node:http');
  const { origin } = new URL(url);
  const path = url.slice(origin.length);
  return new Promise((resolve, reject) => {
    request(origin, { path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject).end();
  });
}

test.run();
