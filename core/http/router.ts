import type { IncomingMessage, ServerResponse } from 'node:http';
import polka, { type Polka, type Request } from 'polka';
import type { Hook, HttpMethod, Logger, RouteHandler, RouteOptions, VigilRequest } from '../plugin-api.js';
import { acceptsExplicitly } from './accepts.js';
import { crossSiteRefusal, type OriginTrust } from './cross-site.js';
import { StoreUnavailableError } from '../contract/event-log.js';
import { HttpError, errorBody } from './http-error.js';

interface RouteEntry {
  readonly method: HttpMethod;
  readonly path: string;
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
  #sealed = false;

  constructor(readonly contextPath: string, private readonly log: Logger) {}

  add(method: HttpMethod, path: string, handler: RouteHandler, options: RouteOptions = {}): void {
    this.#assertOpen();
    if (!path.startsWith('/')) throw new Error(`route path must start with "/": ${path}`);
    const full = `${this.contextPath}${path === '/' && this.contextPath ? '' : path}` || '/';
    this.#routes.push({ method, path: full, handler, options, order: this.#routes.length });
  }

  hook(stage: HookStage, hook: Hook): void {
    this.#assertOpen();
    const hooks = this.#hooks.get(stage);
    if (!hooks) throw new Error(`unknown hook stage "${stage}"; use ${STAGES.join(' or ')}`);
    hooks.push(hook);
  }

  /** Adds a test for origins whose pages may send unsafe requests (see `crossSiteRefusal`). */
  trustOrigin(trust: OriginTrust): void {
    this.#assertOpen();
    this.#trusted.push(trust);
  }

  routes(): { method: HttpMethod; path: string }[] {
    return this.#routes.map(({ method, path }) => ({ method, path }));
  }

  /** The request listener for `http.createServer`. No route or hook can be added afterwards. */
  build(): (req: IncomingMessage, res: ServerResponse) => void {
    this.#sealed = true;
    const app: Polka = polka({
      onError: (error, req, res) => this.#onError(error, req as VigilRequest, res),
      onNoMatch: (req, res) => this.sendError(req as VigilRequest, res, 404, `no route for ${req.method} ${req.path}`),
    });
    // Before every hook and route, whatever plugins are loaded: a forged request must not even
    // reach authentication, where the browser would have added the operator's credentials.
    const trusted = this.#trusted;
    app.use((req, res, next) => {
      const refusal = crossSiteRefusal(req, trusted);
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
    for (const route of [...this.#routes].sort(routeOrder)) {
      const { accepts } = route.options;
      app.add(route.method, route.path, async (req: Request, res: ServerResponse, next: () => Promise<void> | void) => {
        if (accepts !== undefined && !acceptsExplicitly(req, accepts)) return next();
        await route.handler(req as VigilRequest, res);
      });
    }
    return (req, res) => {
      // RFC 9112 §3.2. Node's own check (`requireHostHeader`, off in the kernel) answers without a JSON body.
      if (req.headers.host === undefined && req.httpVersionMajor === 1 && req.httpVersionMinor >= 1) {
        const request = req as VigilRequest;
        request.path = (req.url ?? '/').split('?')[0]!;
        this.sendError(request, res, 400, 'the Host header is required in HTTP/1.1', { connection: 'close' });
        return;
      }
      app.handler(req as Request, res, undefined as never);
    };
  }

  sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = JSON.stringify(body);
    res.writeHead(status, {
      ...headers,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
    });
    res.end(text);
  }

  sendError(req: VigilRequest, res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    this.sendJson(res, status, errorBody(status, message, req.path ?? req.url ?? '/'), headers);
  }

  #onError(error: unknown, req: VigilRequest, res: ServerResponse): void {
    if (error instanceof HttpError) {
      this.sendError(req, res, error.status, error.message, error.headers);
      return;
    }
    if (error instanceof StoreUnavailableError) {
      // The write was not made; a client that tries again later (SBA's re-registration) heals it.
      this.sendError(req, res, 503, `the registry cannot take writes now: ${error.message}`, { 'retry-after': String(error.retryAfterSeconds) });
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

/** Conditional (`accepts`) routes first, then by specificity (static < :param < *), then registration order. */
function routeOrder(a: RouteEntry, b: RouteEntry): number {
  const conditional = Number(a.options.accepts === undefined) - Number(b.options.accepts === undefined);
  if (conditional !== 0) return conditional;
  const shape = (path: string) => path.split('/').map((s) => (s === '*' ? '2' : s.startsWith(':') ? '1' : '0')).join('');
  const [left, right] = [shape(a.path), shape(b.path)];
  if (left !== right) return left < right ? -1 : 1;
  return a.order - b.order;
}
