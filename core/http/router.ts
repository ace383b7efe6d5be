import type { IncomingMessage, ServerResponse } from 'node:http';
import polka, { type Polka, type Request } from 'polka';
import type { AccessDecider, Hook, HttpEdge, HttpMethod, Logger, OriginTrust, RouteHandler, RouteOptions, VigilRequest } from '../plugin-api.js';
import { acceptsExplicitly } from './accepts.js';
import { StoreUnavailableError } from '../contract/event-log.js';
import { messageOf } from '../errors.js';
import { HttpError, errorBody } from './http-error.js';
import { OccasionalWarning } from '../occasional-warning.js';
import { NO_APPLICATIONS } from '../contract/access.js';

/** What the router asks of every request before any hook or route: the edge guards' `Host` and cross-site checks. */
type RequestGuards = Pick<HttpEdge, 'hostRefusal' | 'crossSiteRefusal'>;

interface RouteEntry {
  readonly method: HttpMethod;
  /** The full path, context path included. */
  readonly path: string;
  /** The path as the plugin registered it (below the context path): what `req.route` holds. */
  readonly pattern: string;
  readonly handler: RouteHandler;
  readonly options: RouteOptions;
  readonly order: number;
}

const STAGES = ['pre', 'auth'] as const;
export type HookStage = (typeof STAGES)[number];

/**
 * Collects routes and hooks while plugins set up, then builds one polka app from them. Building
 * once, at listen time, makes the order independent of plugin order: hooks by stage, then routes
 * with an `accepts` condition before plain ones, static segments before parameters.
 */
export class Router {
  readonly #routes: RouteEntry[] = [];
  readonly #hooks = new Map<HookStage, Hook[]>(STAGES.map((stage) => [stage, []]));
  readonly #trusted: OriginTrust[] = [];
  readonly #observers: ResponseObserver[] = [];
  #sealed = false;
  #access: AccessDecider | undefined;

  constructor(readonly contextPath: string, private readonly log: Logger) {}

  add(method: HttpMethod, path: string, handler: RouteHandler, options: RouteOptions = {}): void {
    this.#assertOpen();
    if (!path.startsWith('/')) throw new Error(`route path must start with "/": ${path}`);
    const full = `${this.contextPath}${path === '/' && this.contextPath ? '' : path}` || '/';
    this.#routes.push({ method, path: full, pattern: path, handler, options, order: this.#routes.length });
  }

  /** The access check every route goes through (the kernel's decision point); none in bare routers. */
  checkAccess(decider: AccessDecider): void {
    this.#assertOpen();
    this.#access = decider;
  }

  /** Adds a listener told of every response once it is finished or its connection closed. */
  onResponse(observer: ResponseObserver): void {
    this.#assertOpen();
    this.#observers.push(observer);
  }

  hook(stage: HookStage, hook: Hook): void {
    this.#assertOpen();
    const hooks = this.#hooks.get(stage);
    if (!hooks) throw new Error(`unknown hook stage "${stage}"; use ${STAGES.join(' or ')}`);
    hooks.push(hook);
  }

  /** Adds a test for origins whose pages may send unsafe requests (see `HttpEdge.crossSiteRefusal`). */
  trustOrigin(trust: OriginTrust): void {
    this.#assertOpen();
    this.#trusted.push(trust);
  }

  routes(): { method: HttpMethod; path: string }[] {
    return this.#routes.map(({ method, path }) => ({ method, path }));
  }

  /**
   * The request listener for `http.createServer`. No route or hook can be added afterwards.
   * `guards` are asked first about every request's `Host`, then whether it is a cross-site forgery.
   */
  build(guards: RequestGuards): (req: IncomingMessage, res: ServerResponse) => void {
    this.#sealed = true;
    const app: Polka = polka({
      onError: (error, req, res) => this.#onError(error, req as VigilRequest, res),
      onNoMatch: (req, res) => this.#noMatch(req as VigilRequest, res),
    });
    // Before every hook and route, whatever plugins are loaded: a forged request must not even
    // reach authentication, where the browser would have added the operator's credentials.
    const trusted = this.#trusted;
    app.use((req, res, next) => {
      const refusal = guards.crossSiteRefusal(req, trusted);
      if (refusal === undefined) return next();
      this.log.debug(`403 for ${req.method} ${req.path}: ${refusal}`);
      return this.sendError(req as VigilRequest, res, 403, refusal);
    });
    for (const stage of STAGES) {
      for (const hook of this.#hooks.get(stage)!) {
        app.use(async (req, res, next) => {
          await hook(req as VigilRequest, res);
          if (!res.headersSent && !res.writableEnded) await next();
        });
      }
    }
    const sorted = [...this.#routes].sort(routeOrder);
    const access = this.#access;
    for (const route of sorted) {
      const { accepts } = route.options;
      const { pattern } = route;
      const segments = route.path.split('/');
      app.add(route.method, route.path, async (req: Request, res: ServerResponse, next: () => Promise<void> | void) => {
        if (accepts !== undefined && !acceptsExplicitly(req, accepts)) return next();
        const request = req as VigilRequest;
        request.route = pattern;
        // The one place that decides what a caller may do, for every route of every plugin.
        if (access) {
          const verdict = access.decide(request, route.options, () => exactMatch(segments, request.path));
          if (verdict.kind === 'refuse') {
            this.log.debug(`${verdict.status} for ${req.method} ${request.path}: ${verdict.message}`);
            // What was refused, for whoever observes the response (the audit trail); the handler never sees it.
            request.access = { action: verdict.action, scope: NO_APPLICATIONS, refused: true };
            return this.sendError(request, res, verdict.status, verdict.message);
          }
          request.access = verdict.decision;
        }
        await route.handler(request, res);
      });
    }
    const observe = this.#observers.length > 0 ? this.#observing(sorted) : undefined;
    const misdirected = new OccasionalWarning(this.log, 60_000);
    return (req, res) => {
      observe?.(req as VigilRequest, res);
      // RFC 9112 §3.2. Node's own check (`requireHostHeader`, off in the kernel) answers without a JSON body.
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        const request = req as VigilRequest;
        request.path = (req.url ?? '/').split('?')[0]!;
        this.sendError(request, res, 400, 'the Host header is required in HTTP/1.1', { connection: 'close' });
        return;
      }
      // Before CORS, authentication and every route: a rebound page must not even learn which paths exist.
      const refusal = guards.hostRefusal(req.headers.host);
      if (refusal !== undefined) {
        const request = req as VigilRequest;
        request.path = (req.url ?? '/').split('?')[0]!;
        // A warning (at most once a minute): after an upgrade, clients that reach Vigil under a name not yet allowed show here.
        misdirected.note(() => `${refusal.status} for ${req.method} ${request.path}: ${refusal.message}`);
        this.sendError(request, res, refusal.status, refusal.message);
        return;
      }
      app.handler(req as Request, res, undefined as never);
    };
  }

  sendJson(res: ServerResponse, status: number, body: unknown, headers?: Record<string, string>): void {
    const text = JSON.stringify(body);
    // A flat list of names and values: node:http takes it as it is, where an object is walked key by key.
    const fields: string[] = [];
    if (headers) for (const name in headers) if (name !== 'content-type' && name !== 'content-length') fields.push(name, headers[name]!);
    fields.push('content-type', 'application/json', 'content-length', String(Buffer.byteLength(text)));
    res.writeHead(status, fields);
    res.end(text);
  }

  sendError(req: VigilRequest, res: ServerResponse, status: number, message: string, headers?: Record<string, string>): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.sendJson(res, status, errorBody(status, message, req.path ?? req.url ?? '/'), headers);
  }

  /**
   * Tells the observers of each response when it closes. Only a request that no route handled (a
   * hook answered it, or nothing matched) is matched again then, to name the route it was for.
   */
  #observing(sorted: readonly RouteEntry[]): (req: VigilRequest, res: ServerResponse) => void {
    const observers = [...this.#observers];
    const table = sorted.map((route) => ({ method: route.method, pattern: route.pattern, segments: route.path.split('/') }));
    const patternFor = (method: string, path: string) => table.find((route) =>
      (route.method === method || (method === 'HEAD' && route.method === 'GET')) && segmentsMatch(route.segments, path.split('/')))?.pattern;
    return (req, res) => {
      res.once('close', () => {
        req.route ??= patternFor(req.method ?? '', req.path ?? (req.url ?? '/').split('?')[0]!);
        for (const observer of observers) {
          try {
            observer(req, res);
          } catch (error) {
            this.log.error(`a response observer failed: ${messageOf(error)}`);
          }
        }
      });
    };
  }

  /** No route: 404, but a caller who may read nothing (a machine credential) learns only that it may not. */
  #noMatch(req: VigilRequest, res: ServerResponse): void {
    const message = this.#access?.unmatched(req);
    if (message !== undefined) {
      this.log.debug(`403 for ${req.method} ${req.path}: ${message}`);
      this.sendError(req, res, 403, message);
      return;
    }
    this.sendError(req, res, 404, `no route for ${req.method} ${req.path}`);
  }

  #onError(error: unknown, req: VigilRequest, res: ServerResponse): void {
    if (error instanceof HttpError) {
      this.sendError(req, res, error.status, error.message, error.headers);
      return;
    }
    if (error instanceof StoreUnavailableError) {
      // The store is away; a client that tries again later (SBA's re-registration) heals it. A
      // read of shared state (notification filters) can meet it too: that one was no write.
      const read = req.method === 'GET' || req.method === 'HEAD';
      this.sendError(req, res, 503, `${read ? 'the shared state cannot be read now' : 'the registry cannot take writes now'}: ${error.message}`, { 'retry-after': String(error.retryAfterSeconds) });
      return;
    }
    // Details of an unexpected failure go to the log, never into the response.
    this.log.error(`${req.method} ${req.path}: unhandled error`, { error: error instanceof Error ? error.stack : String(error) });
    this.sendError(req, res, 500, 'internal server error');
  }

  #assertOpen(): void {
    if (this.#sealed) throw new Error('routes and hooks can only be added during setup');
  }
}

export type ResponseObserver = (req: VigilRequest, res: ServerResponse) => void;

/** Whether a path's segments fit a pattern's, as polka matches: `:x` one non-empty segment, a last `*` the rest, one trailing slash allowed. */
function segmentsMatch(pattern: readonly string[], path: string[]): boolean {
  if (path.length > 1 && path[path.length - 1] === '' && pattern[pattern.length - 1] !== '*') path = path.slice(0, -1);
  const wild = pattern[pattern.length - 1] === '*';
  if (wild ? path.length < pattern.length : path.length !== pattern.length) return false;
  for (let i = 0; i < pattern.length; i += 1) {
    const want = pattern[i]!;
    if (want === '*') return true;
    if (want.startsWith(':') ? path[i] === '' : want !== path[i]) return false;
  }
  return true;
}

/** Whether a path is a route's own letter for letter: no trailing slash, no empty or dot segment (what machine roles need). */
function exactMatch(pattern: readonly string[], path: string): boolean {
  const parts = path.split('/');
  if (pattern[pattern.length - 1] === '*') return false;
  if (parts.length !== pattern.length) return false;
  for (let i = 0; i < pattern.length; i += 1) {
    const want = pattern[i]!;
    const part = parts[i]!;
    if (want.startsWith(':') ? part === '' || part === '.' || part === '..' : want !== part) return false;
  }
  return true;
}

/** Conditional (`accepts`) routes first, then by specificity (static < :param < *), then registration order. */
function routeOrder(a: RouteEntry, b: RouteEntry): number {
  const conditional = Number(a.options.accepts === undefined) - Number(b.options.accepts === undefined);
  if (conditional !== 0) return conditional;
  const shape = (path: string) => path.split('/').map((s) => (s === '*' ? '2' : s.startsWith(':') ? '1' : '0')).join('');
  const [left, right] = [shape(a.path), shape(b.path)];
  if (left !== right) return left < right ? -1 : 1;
  return a.order - b.order;
}
