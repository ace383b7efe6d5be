import type { Route } from '../full-kernel.js';
import type { RawResponse } from '../raw-http.js';
import { instanceIdFor, judgeRegistration } from './registration-model.js';
import type { RequestSpec } from './spec.js';

/**
 * What the contract says the answer to one generated request must be. The oracle reads the
 * request the way the contract does, stage by stage: HTTP/1.1 framing, CORS preflight,
 * authentication, then the route. It never asks the daemon.
 */
export type Expected =
  /** The contract's JSON error body with this status; nothing may change. */
  | { readonly kind: 'error'; readonly status: number; readonly path: string; readonly challenges?: readonly string[] }
  /** A success; `verify` returns a complaint or undefined; `mutation` says what changes, if anything. */
  | { readonly kind: 'success'; readonly status: number; readonly verify?: (reply: RawResponse) => string | undefined; readonly mutation?: Mutation }
  /** 200 `text/event-stream`; nothing may change. */
  | { readonly kind: 'stream' }
  /** A route this model does not know (a new one): only the invariants hold (no 5xx, JSON errors, no change on an error). */
  | { readonly kind: 'unmodelled'; readonly pattern: string };

export type Mutation =
  | { readonly kind: 'registered'; readonly id: string }
  | { readonly kind: 'deregistered'; readonly ids: readonly string[] };

/** The registry as the fuzz run arranged it: one healthy instance, one deregistered, and what the run registered. */
export interface World {
  readonly contextPath: string;
  /** Registered instances: id → application name. */
  readonly registered: ReadonlyMap<string, string>;
  /** Every id the registry still holds, deregistered ones included. */
  readonly held: ReadonlySet<string>;
  /** Endpoint ids detected on each registered instance (`health` included). */
  readonly endpoints: ReadonlyMap<string, ReadonlySet<string>>;
  readonly allowedMethods: readonly string[];
  readonly allowedHeaders: readonly string[];
}

export const BODY_LIMIT = 1024 * 1024;
const BASIC = 'Basic realm="Vigil", charset="UTF-8"';
const BEARER = 'Bearer realm="Vigil", error="invalid_token"';
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PURGE']);

export function expectedFor(spec: RequestSpec, world: World, routes: readonly Route[]): Expected {
  const path = spec.path;
  const defect = spec.defect;
  if (defect) {
    if (defect.kind === 'no-host') return { kind: 'error', status: 400, path };
    if (defect.kind === 'expectation') return { kind: 'error', status: 417, path };
    return { kind: 'error', status: defect.kind === 'huge-headers' ? 431 : 400, path: '' };
  }
  const cors = spec.cors;
  if (isForged(spec)) return { kind: 'error', status: 403, path };
  if (cors.kind === 'preflight') {
    const method = cors.requestMethod.trim().toUpperCase();
    const asked = (cors.requestHeaders ?? '').split(',').map((name) => name.trim().toLowerCase()).filter(Boolean);
    const allowed = cors.origin.allowed && world.allowedMethods.includes(method)
      && asked.every((name) => world.allowedHeaders.map((h) => h.toLowerCase()).includes(name));
    return allowed ? { kind: 'success', status: 204 } : { kind: 'error', status: 403, path };
  }
  const auth = spec.auth;
  if (auth.kind === 'none') return { kind: 'error', status: 401, path, challenges: [BASIC] };
  if (auth.kind === 'malformed') return { kind: 'error', status: 401, path, challenges: auth.bearer ? [BASIC, BEARER] : [BASIC] };
  if (auth.kind === 'wrong-password' || auth.kind === 'unknown-user') return { kind: 'error', status: 401, path, challenges: [BASIC] };
  if (auth.kind === 'wrong-token') return { kind: 'error', status: 401, path, challenges: [BASIC, BEARER] };
  if (auth.kind === 'client' && !registrationMayDo(spec.method, path, world.contextPath)) return { kind: 'error', status: 403, path };
  return routeExpectation(spec, world, routes);
}

/**
 * The kernel's cross-site check, before CORS and authentication: an unsafe method that a browser
 * marks as coming from another site (an Origin the cors section does not list, or
 * `Sec-Fetch-Site: cross-site` without an Origin). The generated origins are never the daemon's own.
 */
function isForged(spec: RequestSpec): boolean {
  if (!['POST', 'PUT', 'PATCH', 'DELETE'].includes(spec.method)) return false;
  if (spec.cors.kind === 'actual') return !spec.cors.origin.allowed;
  const site = spec.extras.filter(([name]) => name.toLowerCase() === 'sec-fetch-site').map(([, value]) => value).join(', ');
  return site.toLowerCase() === 'cross-site';
}

/** The `registration` role: register and deregister, nothing else (plugins/basic-auth roles). */
function registrationMayDo(method: string, path: string, contextPath: string): boolean {
  if (!path.startsWith(`${contextPath}/`)) return false;
  const rest = path.slice(contextPath.length);
  return (method === 'POST' && rest === '/instances') || (method === 'DELETE' && /^\/instances\/[^/]+$/.test(rest));
}

function routeExpectation(spec: RequestSpec, world: World, routes: readonly Route[]): Expected {
  const { method, path } = spec;
  const match = matchRoute(routes, method, path);
  if (!match) return { kind: 'error', status: 404, path };
  const relative = match.route.path.slice(world.contextPath.length) || '/';
  const params = match.params;
  const sse = wantsStream(spec.accept);
  const verb = method === 'HEAD' ? 'GET' : method;
  const key = `${BODY_METHODS.has(verb) || verb === 'DELETE' || verb === 'GET' ? verb : 'OTHER'} ${relative}`;
  const err = (status: number): Expected => ({ kind: 'error', status, path });
  const held = (id: string) => world.held.has(id);
  const membersOf = (name: string) => [...world.registered].filter(([, app]) => app === name).map(([id]) => id);

  // The proxy answers every method alike.
  if (relative === '/instances/:id/actuator' || relative === '/applications/:name/actuator') {
    return relative.startsWith('/instances') && !held(params.id!) ? err(404) : err(404); // "no endpoint specified" either way
  }
  if (relative === '/instances/:id/actuator/*') return instanceProxy(spec, world, params.id!, err);
  if (relative === '/applications/:name/actuator/*') return applicationProxy(spec, world, membersOf(params.name!), err);

  switch (key) {
    case 'POST /instances':
      return registration(spec, err);
    case 'GET /instances': {
      const names = new URLSearchParams(spec.query.slice(1)).getAll('name');
      if (names.length > 1) return err(400);
      const expected = [...world.registered].filter(([, app]) => names.length === 0 || app === names[0]).map(([id]) => id).sort();
      return { kind: 'success', status: 200, verify: listOf(method, (item) => item.id, expected) };
    }
    case 'GET /instances/events':
      return sse ? { kind: 'stream' } : { kind: 'success', status: 200, verify: isArray(method) };
    case 'GET /instances/:id':
      if (sse) return held(params.id!) ? { kind: 'stream' } : err(404);
      return world.registered.has(params.id!) ? { kind: 'success', status: 200, verify: field(method, 'id', params.id!) } : err(404);
    case 'DELETE /instances/:id':
      if (!held(params.id!)) return err(404);
      return { kind: 'success', status: 204, ...(world.registered.has(params.id!) ? { mutation: { kind: 'deregistered', ids: [params.id!] } } : {}) };
    case 'GET /instances/:id/events':
      return held(params.id!) ? { kind: 'stream' } : err(404);
    case 'GET /applications':
      return sse ? { kind: 'stream' } : { kind: 'success', status: 200, verify: isArray(method) };
    case 'GET /applications/events':
      return { kind: 'stream' };
    case 'GET /applications/:name':
      return membersOf(params.name!).length > 0 ? { kind: 'success', status: 200, verify: field(method, 'name', params.name!) } : err(404);
    case 'DELETE /applications/:name': {
      const members = membersOf(params.name!);
      return members.length > 0 ? { kind: 'success', status: 204, mutation: { kind: 'deregistered', ids: members } } : err(404);
    }
    case 'POST /applications':
      return { kind: 'success', status: 200 };
    default:
      return { kind: 'unmodelled', pattern: `${match.route.method} ${match.route.path}` };
  }
}

function registration(spec: RequestSpec, err: (status: number) => Expected): Expected {
  if (!isJsonType(spec.contentType)) return err(415);
  const body = spec.body ?? Buffer.alloc(0);
  if (body.length > BODY_LIMIT) return err(413);
  const text = body.toString('utf8');
  if (text.trim() === '') return err(400);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return err(400);
  }
  const verdict = judgeRegistration(value);
  if (!verdict.valid) return err(400);
  const id = instanceIdFor(verdict.healthUrl);
  return {
    kind: 'success',
    status: 201,
    mutation: { kind: 'registered', id },
    verify: (reply) => {
      const got = parseJson(reply.body) as { id?: unknown } | undefined;
      if (got?.id !== id) return `expected id ${id}, got ${reply.body.toString('utf8')}`;
      return reply.headers.location?.endsWith(`/instances/${id}`) ? undefined : `Location ${reply.headers.location}`;
    },
  };
}

function instanceProxy(spec: RequestSpec, world: World, id: string, err: (status: number) => Expected): Expected {
  if (!world.held.has(id)) return err(404);
  const verdict = judgeProxyTail(proxyRest(spec.path));
  if (verdict.kind === 'unsafe') return err(400);
  if (verdict.kind === 'empty') return err(404);
  if (!world.endpoints.get(id)?.has(verdict.endpointId)) return err(404);
  const verb = spec.method;
  const sent = BODY_METHODS.has(verb) ? spec.body?.length ?? 0 : 0;
  return {
    kind: 'success',
    status: 200,
    verify: (reply) => {
      if (verb === 'HEAD') return undefined;
      const echo = parseJson(reply.body) as { method?: unknown; bodyBytes?: unknown } | undefined;
      if (echo?.method !== verb) return `the instance saw method ${String(echo?.method)}`;
      return echo.bodyBytes === sent ? undefined : `the instance read ${String(echo.bodyBytes)} body bytes of ${sent}`;
    },
  };
}

function applicationProxy(spec: RequestSpec, world: World, members: readonly string[], err: (status: number) => Expected): Expected {
  const verdict = judgeProxyTail(proxyRest(spec.path));
  if (verdict.kind === 'unsafe') return err(400);
  if (verdict.kind === 'empty') return err(404);
  if (BODY_METHODS.has(spec.method) && (spec.body?.length ?? 0) > BODY_LIMIT) return err(413);
  const expected = members.map((id) => ({ instanceId: id, status: world.endpoints.get(id)?.has(verdict.endpointId) ? 200 : 404 }));
  return {
    kind: 'success',
    status: 200,
    verify: (reply) => {
      if (spec.method === 'HEAD') return undefined;
      const got = parseJson(reply.body);
      if (!Array.isArray(got)) return 'fan-out answer is not an array';
      const seen = got.map((item: { instanceId?: unknown; status?: unknown }) => ({ instanceId: item.instanceId, status: item.status }));
      return JSON.stringify(seen) === JSON.stringify(expected) ? undefined : `fan-out ${JSON.stringify(seen)}, expected ${JSON.stringify(expected)}`;
    },
  };
}

export type TailVerdict =
  | { readonly kind: 'empty' }
  | { readonly kind: 'unsafe' }
  | { readonly kind: 'ok'; readonly endpointId: string };

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

/**
 * The proxy's documented refusals (plugins/proxy/README.md "Answers"): dot segments in any
 * spelling (`..;` too), encoded slashes and backslashes, `\`, `//`, control bytes, malformed or
 * double percent-encoding. A single trailing slash is fine.
 */
export function judgeProxyTail(rest: string): TailVerdict {
  if (rest === '') return { kind: 'empty' };
  const segments = rest.split('/');
  let endpointId = '';
  for (const [index, raw] of segments.entries()) {
    if (raw === '') {
      if (index > 0 && index === segments.length - 1) continue;
      return { kind: 'unsafe' };
    }
    if (raw.includes('\\')) return { kind: 'unsafe' };
    let decoded: string;
    try {
      decoded = decodeURIComponent(raw);
    } catch {
      return { kind: 'unsafe' };
    }
    if (CONTROL.test(decoded) || decoded.includes('/') || decoded.includes('\\')) return { kind: 'unsafe' };
    const bare = decoded.split(';')[0];
    if (bare === '.' || bare === '..') return { kind: 'unsafe' };
    if (/%(?:2e|2f|5c)/i.test(decoded)) return { kind: 'unsafe' };
    if (index === 0) endpointId = decoded;
  }
  return { kind: 'ok', endpointId };
}

/** The raw part after `/actuator/` of a proxy path (`''` for the bare `/actuator` form). */
function proxyRest(path: string): string {
  const match = /^.*?\/(?:instances|applications)\/[^/]+\/actuator(?:\/(.*))?$/is.exec(path);
  return match?.[1] ?? '';
}

/** RFC 9110 content negotiation, as far as streams go: `text/event-stream` named with q > 0. */
export function wantsStream(accept: string | null): boolean {
  if (accept === null) return false;
  return accept.split(',').some((part) => {
    const [media, ...params] = part.split(';').map((piece) => piece.trim());
    if (media?.toLowerCase() !== 'text/event-stream') return false;
    const q = params.find((param) => param.startsWith('q='));
    return q === undefined || Number(q.slice(2)) > 0;
  });
}

/** `application/json` or any `+json` type, parameters allowed. */
export function isJsonType(contentType: string | null): boolean {
  if (contentType === null) return false;
  const essence = contentType.split(';')[0]!.trim().toLowerCase();
  return essence === 'application/json' || /^application\/[\w.+-]+\+json$/.test(essence);
}

interface Match {
  readonly route: Route;
  readonly params: Record<string, string>;
}

/**
 * The route that serves `method path`: patterns match case-insensitively, a trailing slash is
 * optional, `:param` is one segment (percent-decoded when valid), `*` the rest; the most
 * specific pattern wins (static before `:param` before `*`). HEAD is served by GET routes.
 */
export function matchRoute(routes: readonly Route[], method: string, path: string): Match | undefined {
  if (!KNOWN_METHODS.has(method)) return undefined;
  const candidates = routes
    .filter((route) => route.method === method || (method === 'HEAD' && route.method === 'GET'))
    .map((route) => ({ route, params: paramsOf(route.path, path) }))
    .filter((entry): entry is Match => entry.params !== undefined);
  candidates.sort((a, b) => shape(a.route.path).localeCompare(shape(b.route.path)));
  return candidates[0];
}

function shape(pattern: string): string {
  return pattern.split('/').map((s) => (s === '*' ? '2' : s.startsWith(':') ? '1' : '0')).join('');
}

function paramsOf(pattern: string, path: string): Record<string, string> | undefined {
  const keys: string[] = [];
  const source = pattern.split('/').filter(Boolean).map((segment) => {
    if (segment === '*') {
      keys.push('wild');
      return '/(.*)';
    }
    if (segment.startsWith(':')) {
      keys.push(segment.slice(1));
      return '/([^/]+?)';
    }
    return `/${segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`;
  }).join('');
  const found = new RegExp(`^${source}/?$`, 'i').exec(path);
  if (!found) return undefined;
  const params: Record<string, string> = {};
  keys.forEach((key, index) => {
    const raw = found[index + 1]!;
    try {
      params[key] = decodeURIComponent(raw);
    } catch {
      params[key] = raw;
    }
  });
  return params;
}

function parseJson(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

function isArray(method: string) {
  return (reply: RawResponse) => (method === 'HEAD' || Array.isArray(parseJson(reply.body)) ? undefined : 'not a JSON array');
}

function field(method: string, name: string, value: string) {
  return (reply: RawResponse) => {
    if (method === 'HEAD') return undefined;
    const got = (parseJson(reply.body) as Record<string, unknown> | undefined)?.[name];
    return got === value ? undefined : `${name} is ${JSON.stringify(got)}, expected ${JSON.stringify(value)}`;
  };
}

function listOf(method: string, key: (item: Record<string, unknown>) => unknown, expected: readonly string[]) {
  return (reply: RawResponse) => {
    if (method === 'HEAD') return undefined;
    const got = parseJson(reply.body);
    if (!Array.isArray(got)) return 'not a JSON array';
    const ids = got.map((item: Record<string, unknown>) => key(item)).sort();
    return JSON.stringify(ids) === JSON.stringify(expected) ? undefined : `listed ${JSON.stringify(ids)}, expected ${JSON.stringify(expected)}`;
  };
}
