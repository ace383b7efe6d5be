import fc from 'fast-check';
import type { Route } from '../full-kernel.js';
import { BODY_LIMIT } from './oracle.js';
import type { Auth, Cors, Defect, Origin, RequestSpec } from './spec.js';

/** The parts of the arranged world the generators pick from. */
export interface FuzzTargets {
  readonly contextPath: string;
  readonly targetId: string;
  readonly targetName: string;
  readonly goneId: string;
  readonly goneName: string;
  /** Endpoint ids the target has detected. */
  readonly detected: readonly string[];
  /** A port nothing listens on: the host of every valid registration a run makes. */
  readonly closedPort: number;
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PURGE'];
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const TCHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/;
/** Bytes HTTP/1.1 forbids (and Node refuses) in a request target, a header name, a header value. */
const BAD_TARGET_BYTES = [...range(0x00, 0x20), 0x7f, ...range(0x80, 0xff)];
const BAD_NAME_BYTES = range(0x00, 0xff).filter((b) => b !== 0x3a && !TCHAR.test(String.fromCharCode(b)));
const BAD_VALUE_BYTES = [...range(0x00, 0x08), ...range(0x0a, 0x1f), 0x7f];

/** Printable ASCII: any of it is a valid header value. */
const printable = (maxLength: number) =>
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)), maxLength });
/** Any Unicode text (well-formed: a path or a header cannot carry a lone surrogate). */
const anyText = (maxLength = 24) => fc.string({ unit: 'binary', maxLength });

const encodeAll = (value: string) => [...Buffer.from(value, 'utf8')].map((byte) => `%${byte.toString(16).padStart(2, '0').toUpperCase()}`).join('');
const MALFORMED_ESCAPES = ['%', '%z', '%zz', '%E0%A4', '%ff', '%%41', '%C0%AF'];

/** One path segment from a decoded value: percent-encoded as a client would, fully, or with a broken escape. */
function segment(values: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.tuple(values, fc.constantFrom('plain', 'plain', 'plain', 'plain', 'encoded', 'malformed'), fc.constantFrom(...MALFORMED_ESCAPES))
    .map(([value, render, escape]) => {
      if (render === 'encoded') return encodeAll(value);
      if (render === 'malformed') return `${encodeURIComponent(value)}${escape}`;
      return encodeURIComponent(value);
    });
}

const SPECIAL_SEGMENTS = ['events', 'EVENTS', '..', '.', '%', ' ', 'null', '__proto__', 'constructor', 'a'.repeat(3000), '\u202e', '😀'];

function paramValue(name: string, t: FuzzTargets): fc.Arbitrary<string> {
  const specials = fc.constantFrom(...SPECIAL_SEGMENTS);
  if (name === 'id') {
    const hex = fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 12, maxLength: 12 });
    return fc.oneof({ arbitrary: fc.constant(t.targetId), weight: 5 }, { arbitrary: fc.constant(t.goneId), weight: 2 },
      { arbitrary: hex, weight: 2 }, { arbitrary: anyText(), weight: 2 }, { arbitrary: specials, weight: 1 });
  }
  if (name === 'name') {
    return fc.oneof({ arbitrary: fc.constant(t.targetName), weight: 5 }, { arbitrary: fc.constant(t.goneName), weight: 2 },
      { arbitrary: anyText(), weight: 2 }, { arbitrary: specials, weight: 1 });
  }
  return fc.oneof(anyText(), specials);
}

/** The part after `/actuator/`: a detected endpoint or not, then segments, some unsafe in every spelling the proxy refuses. */
function proxyTail(t: FuzzTargets): fc.Arbitrary<string> {
  const unsafe = ['..', '.', '%2e%2e', '%2E.', '.%2e', '..;x', '%2F', 'a%2fb', '\\', 'a%5Cb', '', '%252e%252e', '%255c', '%00', '%0a', '%7F',
    ...MALFORMED_ESCAPES];
  const harmless = [';', 'a;b', '~', "!$&'()*+,;=:@", 'has%20space', 'caf%C3%A9', 'x'.repeat(200)];
  const first = fc.oneof(
    { arbitrary: fc.constantFrom(...t.detected), weight: 6 },
    { arbitrary: fc.constantFrom('heapdump', 'shutdown', 'restart', 'HEALTH'), weight: 1 },
    { arbitrary: segment(anyText(12)), weight: 1 },
    { arbitrary: fc.constantFrom(...unsafe), weight: 2 },
  );
  const more = fc.oneof(
    { arbitrary: segment(anyText(12)), weight: 3 },
    { arbitrary: fc.constantFrom(...harmless), weight: 2 },
    { arbitrary: fc.constantFrom(...unsafe), weight: 2 },
  );
  return fc.tuple(first, fc.array(more, { maxLength: 3 }), fc.boolean()).map(([head, rest, slash]) => [head, ...rest].join('/') + (slash ? '/' : ''));
}

function pathFor(route: Route, t: FuzzTargets): fc.Arbitrary<string> {
  const parts = route.path.split('/').slice(1).map((part): fc.Arbitrary<string> => {
    if (part === '*') return proxyTail(t);
    if (part.startsWith(':')) return segment(paramValue(part.slice(1), t));
    return fc.constant(part);
  });
  return fc.tuple(fc.tuple(...parts), fc.integer({ min: 0, max: 9 })).map(([segments, dice]) => `/${segments.join('/')}${dice === 0 ? '/' : ''}`);
}

/** Paths no route serves: the oracle must find no match. */
const unroutedPath = fc.tuple(fc.constantFrom('/x-nothing', '/instancesX', '/actuator', '/%2e%2e', '/'), fc.array(segment(anyText(8)), { maxLength: 3 }))
  .map(([head, rest]) => [head === '/' ? '' : head, ...rest].join('/') || '/');

const queryKey = fc.constantFrom('name', '%6Eame', 'NAME', 'foo', 'name[]', '', '__proto__', 'a+b');
function query(t: FuzzTargets): fc.Arbitrary<string> {
  const value = fc.oneof(fc.constant(t.targetName), segment(anyText(12)), fc.constantFrom('%zz', '+', ''));
  const pairs = fc.array(fc.tuple(queryKey, value), { minLength: 1, maxLength: 4 }).map((list) => `?${list.map(([k, v]) => `${k}=${v}`).join('&')}`);
  const specials = fc.constantFrom('?', '?&&', '?=', '?name', `?name=${t.targetName}`, `?name=${t.targetName}&name=x`, '?%6Eame=a&name=b',
    '?name=%zz', `?a=${'q'.repeat(4000)}`, '?name[]=x', '?__proto__=x', '?name=%E2%98%83', '?#frag');
  return fc.oneof({ arbitrary: fc.constant(''), weight: 6 }, { arbitrary: pairs, weight: 3 }, { arbitrary: specials, weight: 1 });
}

const b64 = (bytes: string | Buffer) => Buffer.from(bytes).toString('base64');
const MALFORMED_AUTH: readonly (readonly [string, boolean])[] = [
  ['Basic', false], ['Basic !!!', false], [`Basic ${b64('nocolon')}`, false], [`Basic ${b64(':nouser')}`, false],
  [`Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0x61]))}`, false], ['Basic a', false], ['Basic ====', false],
  ['Bearer', true], ['Bearer a b', true], ['Bearer ä', true], ['bearer !!', true],
  ['Digest username="admin"', false], ['Negotiate abc', false], [`Basic ${'A'.repeat(6000)}`, false],
];
const auth: fc.Arbitrary<Auth> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'admin' } as const), weight: 40 },
  { arbitrary: fc.constant({ kind: 'token' } as const), weight: 8 },
  { arbitrary: fc.constant({ kind: 'client' } as const), weight: 5 },
  { arbitrary: fc.constant({ kind: 'none' } as const), weight: 5 },
  { arbitrary: fc.constantFrom(...MALFORMED_AUTH).map(([value, bearer]) => ({ kind: 'malformed', value, bearer }) as const), weight: 6 },
  { arbitrary: fc.constant({ kind: 'wrong-token' } as const), weight: 3 },
  // These two cost a full scrypt (~50 ms) the first time, then a remembered refusal: rare, but present.
  { arbitrary: fc.constant({ kind: 'wrong-password' } as const), weight: 1 },
  { arbitrary: fc.constant({ kind: 'unknown-user' } as const), weight: 1 },
);

const ORIGINS: readonly Origin[] = [
  { value: 'https://ops.example.com', allowed: true }, { value: 'HTTPS://OPS.EXAMPLE.COM', allowed: true },
  { value: 'https://ops.example.com:443', allowed: true }, { value: 'https://ops.example.com/', allowed: true },
  { value: 'https://evil.example', allowed: false }, { value: 'http://ops.example.com', allowed: false },
  { value: 'null', allowed: false }, { value: 'https://ops.example.com.evil.io', allowed: false },
  { value: 'ü', allowed: false }, { value: 'https://ops.example.com/path', allowed: false }, { value: '', allowed: false },
];
const cors: fc.Arbitrary<Cors> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'none' } as const), weight: 16 },
  { arbitrary: fc.constantFrom(...ORIGINS).map((origin) => ({ kind: 'actual', origin }) as const), weight: 3 },
  {
    arbitrary: fc.record({
      kind: fc.constant('preflight' as const),
      origin: fc.constantFrom(...ORIGINS),
      requestMethod: fc.constantFrom('GET', 'post', 'DELETE', 'PUT', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'FOO', ''),
      requestHeaders: fc.constantFrom(null, 'content-type', 'Authorization, X-Requested-With', 'accept,content-type', 'x-custom', 'content-type, x-custom', '', ' , '),
    }),
    weight: 1,
  },
);

const accept = fc.oneof(
  { arbitrary: fc.constantFrom(null, 'application/json', '*/*', 'text/event-stream', 'text/event-stream;q=0', 'TEXT/EVENT-STREAM',
    'application/json, text/event-stream;q=0.5', 'text/event-stream; q=0.0', 'text/html', 'garbage;;;', 'text/event-stream;q=abc'), weight: 6 },
  { arbitrary: printable(40), weight: 1 },
);

const contentType = fc.oneof(
  { arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8'), weight: 6 },
  { arbitrary: fc.constantFrom(null, 'APPLICATION/JSON', 'application/vnd.spring-boot.actuator.v2+json', 'application/problem+json', 'text/plain',
    'application/x-www-form-urlencoded', 'application/jsonx', 'json', 'application/json;;;', ' application/json', 'multipart/form-data; boundary=x'), weight: 2 },
  { arbitrary: printable(30), weight: 1 },
);

const extras = fc.array(fc.oneof(
  fc.constant(['X-Odd', 'ü☃ 名前 \u202e'] as const),
  fc.constant(['Cookie', 'session=abc; '.repeat(150)] as const),
  fc.constant(['Range', 'bytes=0-1'] as const),
  fc.constant(['X-Forwarded-For', '999.999.999.999, <script>'] as const),
  fc.constantFrom('5', '-1', '1e9', 'abc', '99999999999999999999').map((id) => ['Last-Event-ID', id] as const),
  fc.constant(['Expect', '100-continue'] as const),
  fc.constant(['X-Empty', ''] as const),
  fc.constant(['Accept-Encoding', 'gzip, br, zstd'] as const),
  fc.constantFrom('cross-site', 'same-origin', 'same-site', 'none', 'CROSS-SITE').map((site) => ['Sec-Fetch-Site', site] as const),
  fc.tuple(fc.constantFrom('X-Any', 'If-None-Match', 'User-Agent', 'Accept-Language'), printable(60)),
), { maxLength: 3 });

const defect: fc.Arbitrary<Defect | null> = fc.oneof(
  { arbitrary: fc.constant(null), weight: 30 },
  { arbitrary: fc.constantFrom(...BAD_TARGET_BYTES).map((byte) => ({ kind: 'target-byte', byte }) as const), weight: 1 },
  { arbitrary: fc.constantFrom(...BAD_NAME_BYTES).map((byte) => ({ kind: 'header-name-byte', byte }) as const), weight: 1 },
  { arbitrary: fc.constantFrom(...BAD_VALUE_BYTES).map((byte) => ({ kind: 'header-value-byte', byte }) as const), weight: 1 },
  {
    arbitrary: fc.oneof(
      fc.constant({ kind: 'huge-headers' } as const),
      fc.constantFrom('get', 'G@T', 'FOO', 'PRI').map((method) => ({ kind: 'bad-method', method }) as const),
      fc.constantFrom('HTTP/9.9', 'HTTP/1.x', 'HTTP/1', 'HTTP/01.1', 'http/1.1', 'HTTP/1.2').map((version) => ({ kind: 'bad-version', version }) as const),
      fc.constantFrom('abc', '-1', '1 2', '0x10', '99999999999999999999999', '+5', '1,2').map((value) => ({ kind: 'bad-content-length', value }) as const),
      fc.constant({ kind: 'length-and-chunked' } as const),
      fc.constant({ kind: 'no-host' } as const),
      fc.constantFrom('nonsense', '200-ok', 'x-continue').map((value) => ({ kind: 'expectation', value }) as const),
    ),
    weight: 3,
  },
);

/** JSON text of a value nested `depth` objects deep inside `metadata` (built as text: no recursion). */
function deepMetadata(depth: number, healthUrl: string): string {
  return `{"name":"deep","healthUrl":${JSON.stringify(healthUrl)},"metadata":${'{"a":'.repeat(depth)}"v"${'}'.repeat(depth)}}`;
}

function registrationBody(t: FuzzTargets): fc.Arbitrary<Buffer> {
  const healthUrl = fc.nat({ max: 1_000_000 }).map((n) => `http://127.0.0.1:${t.closedPort}/fuzz/${n}/health`);
  const name = fc.oneof(
    { arbitrary: fc.constantFrom('app', 'ünïcødé ☃', '名前', 'a'.repeat(512), ' padded ', '\u200b', '\u202eevil', '\ud800', '😀'.repeat(10)), weight: 3 },
    { arbitrary: fc.constantFrom('', '   ', '\u00a0', 42, true, null, [], {}, 'a'.repeat(513), 'tab\there', 'nul\u0000', 'del\u007f', 'line\nbreak'), weight: 2 },
    { arbitrary: anyText(40), weight: 2 },
  );
  const otherUrl = fc.oneof(
    fc.constantFrom(undefined, null, '', 42, 'ftp://127.0.0.1/x', 'not a url', 'http://', '/relative/health', 'javascript:alert(1)',
      'http:// 127.0.0.1/x', 'http://127.0.0.1/a b', 'http://127.0.0.1/\u0000', `http://127.0.0.1/${'p'.repeat(4100)}`, 'mailto:x@y',
      'file:///etc/passwd', `HTTP://127.0.0.1:${t.closedPort}/ok`, `http://[::1]:${t.closedPort}/v6`, `http://127.0.0.1:${t.closedPort}/ü?x=y#f`),
    anyText(30),
  );
  const metadata = fc.oneof(
    fc.constantFrom(undefined, null, {}, { k: 'v' }, { k: 1, b: true, n: null }, { tags: { env: 'x', deeper: { a: 'b' } } }, { '\u0000key': 'v', '': '' },
      JSON.parse('{"__proto__":"x","constructor":{"prototype":"y"}}') as object, { 'user.password': 'meta-secret' }, 'x', 1, [], { k: [] }, { k: [1] }, { k: { l: [null] } }),
    fc.dictionary(anyText(10), fc.oneof(anyText(10), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 })), { maxKeys: 4 }),
  );
  const extra = fc.dictionary(fc.constantFrom('foo', 'source', 'id', 'status', 'health_url', 'service_url', 'management_url', 'url'), fc.oneof(anyText(10), otherUrl, healthUrl), { maxKeys: 2 });
  const object = fc.record({
    name,
    healthUrl: fc.oneof({ arbitrary: healthUrl, weight: 4 }, { arbitrary: otherUrl, weight: 2 }),
    managementUrl: fc.oneof(fc.constant(undefined), healthUrl.map((u) => u.replace(/\/health$/, '')), otherUrl),
    serviceUrl: fc.oneof(fc.constant(undefined), otherUrl),
    metadata,
    extra,
  }).map(({ extra: more, ...fields }) => ({ ...fields, ...more }));
  const asJson = fc.tuple(object, fc.constantFrom('plain', 'pretty', 'escaped', 'padded-to-limit', 'padded-over-limit', 'truncated'), fc.nat())
    .map(([value, style, cut]) => {
      const text = JSON.stringify(value);
      switch (style) {
        case 'pretty':
          return Buffer.from(JSON.stringify(value, null, '\t\n '));
        case 'escaped':
          return Buffer.from(text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
        case 'padded-to-limit':
        case 'padded-over-limit': {
          const size = style === 'padded-to-limit' ? BODY_LIMIT : BODY_LIMIT + 1;
          const bytes = Buffer.from(text);
          return bytes.length >= size ? bytes : Buffer.concat([bytes, Buffer.alloc(size - bytes.length, 0x20)]);
        }
        case 'truncated': {
          const bytes = Buffer.from(text);
          return bytes.subarray(0, cut % Math.max(1, bytes.length));
        }
        default:
          return Buffer.from(text);
      }
    });
  const deep = fc.tuple(fc.constantFrom(1, 31, 32, 33, 64, 5000, 100_000), healthUrl).map(([depth, url]) => Buffer.from(deepMetadata(depth, url)));
  const deepRoot = fc.constantFrom(100, 200_000).map((depth) => Buffer.from(`${'['.repeat(depth)}${']'.repeat(depth)}`));
  return fc.oneof({ arbitrary: asJson, weight: 8 }, { arbitrary: deep, weight: 1 }, { arbitrary: deepRoot, weight: 1 }, { arbitrary: otherBody, weight: 2 });
}

/** Not a registration: other JSON, garbage, blank, binary, oversized. */
const otherBody: fc.Arbitrary<Buffer> = fc.oneof(
  fc.constantFrom('[]', '"text"', '42', 'null', 'true', '{', '{"name":', '\ufeff{}', '{"a":1,}', "{'name':'x'}", 'NaN', '', '   \n\t ', '{}')
    .map((text) => Buffer.from(text)),
  anyText(80).map((text) => Buffer.from(text)),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
  fc.constantFrom(BODY_LIMIT + 1, 2 * BODY_LIMIT).map((size) => Buffer.alloc(size, 0x61)),
);

function body(route: Route, t: FuzzTargets): fc.Arbitrary<Buffer | undefined> {
  const relative = route.path.slice(t.contextPath.length);
  if (route.method === 'POST' && relative === '/instances') {
    return fc.oneof({ arbitrary: registrationBody(t), weight: 9 }, { arbitrary: fc.constant(undefined), weight: 1 });
  }
  return fc.oneof({ arbitrary: fc.constant(undefined), weight: 12 }, { arbitrary: otherBody, weight: 2 }, { arbitrary: registrationBody(t), weight: 1 });
}

/**
 * A request: a route taken from the router's table (or no route), its parameters filled with
 * real and unknown ids and names in every encoding, and everything around it perturbed:
 * method, query, credentials, CORS, Accept, Content-Type, odd headers, the body, the framing,
 * and now and then a defect in the bytes themselves.
 */
export function requestSpec(routes: readonly Route[], t: FuzzTargets): fc.Arbitrary<RequestSpec> {
  const unrouted: Route = { method: 'GET', path: '(no route)' };
  // Routes that read a body get more of the runs: that is where most of the bad input goes.
  const weightOf = (route: Route) => (route.method === 'POST' ? (route.path === `${t.contextPath}/instances` ? 12 : 3) : 1);
  const routeArb = fc.oneof(
    ...routes.map((route) => ({ arbitrary: fc.constant(route), weight: weightOf(route) })),
    { arbitrary: fc.constant(unrouted), weight: 2 },
  );
  return routeArb.chain((route) => fc.record({
    route: fc.constant(route),
    method: fc.oneof({ arbitrary: fc.constant(route.method), weight: 8 }, { arbitrary: fc.constantFrom(...METHODS), weight: 1 }),
    path: route === unrouted ? unroutedPath.map((p) => `${t.contextPath}${p}`) : pathFor(route, t),
    query: query(t),
    auth,
    accept,
    contentType,
    cors,
    extras,
    body: body(route, t),
    framing: fc.oneof({ arbitrary: fc.constant('length' as const), weight: 9 }, { arbitrary: fc.constant('chunked' as const), weight: 1 }),
    defect,
  })).map((spec) => (spec.cors.kind === 'preflight' ? { ...spec, method: 'OPTIONS' } : spec));
}
