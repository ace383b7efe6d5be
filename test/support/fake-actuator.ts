import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocal, type LocalServer } from './local-server.js';

export const ACTUATOR_V3 = 'application/vnd.spring-boot.actuator.v3+json';

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received, byte for byte. */
  readonly url: string;
  readonly path: string;
  readonly headers: IncomingMessage['headers'];
  readonly body: Buffer;
}

/** How a route answers. `handler` takes over completely (hang, reset, drip, stream...). */
export interface RouteSpec {
  readonly status?: number;
  readonly json?: unknown;
  readonly body?: string | Buffer;
  readonly contentType?: string;
  readonly headers?: Record<string, string>;
  readonly delayMs?: number;
  readonly handler?: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void;
}

/**
 * A real `node:http` server on 127.0.0.1 that speaks the actuator format: an index with `_links`
 * under `/actuator`, health, info, and any route a test sets. It records every request.
 */
export class FakeActuator {
  readonly requests: RecordedRequest[] = [];
  readonly #routes = new Map<string, RouteSpec>();
  #listening: LocalServer | undefined;
  port = 0;

  /** Starts with an index listing `links` (set `links: null` for an index that answers 404). */
  static async start(options: { links?: readonly string[] | null; health?: unknown; info?: unknown; basePath?: string } = {}): Promise<FakeActuator> {
    const fake = new FakeActuator(options.basePath ?? '/actuator');
    await fake.listen();
    const links = options.links === undefined ? ['health', 'info'] : options.links;
    if (links) fake.setIndex(links);
    fake.on('GET', '/health', { json: options.health ?? { status: 'UP' }, contentType: ACTUATOR_V3 });
    fake.on('GET', '/info', { json: options.info ?? {}, contentType: ACTUATOR_V3 });
    return fake;
  }

  constructor(readonly basePath: string) {}

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get managementUrl(): string {
    return `${this.origin}${this.basePath}`;
  }

  get healthUrl(): string {
    return `${this.managementUrl}/health`;
  }

  endpointUrl(id: string): string {
    return `${this.managementUrl}/${id}`;
  }

  /** A registration body for this instance. */
  registration(name: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { name, healthUrl: this.healthUrl, managementUrl: this.managementUrl, serviceUrl: `${this.origin}/`, metadata: {}, ...extra };
  }

  /** Sets how `METHOD basePath+sub` answers (`sub` '' is the index itself). */
  on(method: string, sub: string, spec: RouteSpec): this {
    this.#routes.set(`${method} ${this.basePath}${sub}`, spec);
    return this;
  }

  setIndex(links: readonly string[]): void {
    const _links: Record<string, unknown> = { self: { href: this.managementUrl, templated: false } };
    for (const link of links) _links[link] = { href: this.endpointUrl(link), templated: false };
    _links['metrics-requiredMetricName'] = { href: `${this.managementUrl}/metrics/{requiredMetricName}`, templated: true };
    this.on('GET', '', { json: { _links }, contentType: ACTUATOR_V3 });
  }

  setHealth(status: number, json: unknown, contentType = ACTUATOR_V3): void {
    this.on('GET', '/health', { status, json, contentType });
  }

  requestsTo(sub: string, method?: string): RecordedRequest[] {
    return this.requests.filter((r) => r.path === `${this.basePath}${sub}` && (!method || r.method === method));
  }

  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    await listening?.close();
  }

  private async listen(): Promise<void> {
    const server = createServer((req, res) => this.#handle(req, res));
    this.#listening = await listenLocal(server);
    this.port = this.#listening.port;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = req.url ?? '/';
      const path = url.split('?')[0]!;
      this.requests.push({ method: req.method ?? 'GET', url, path, headers: req.headers, body });
      const spec = this.#routes.get(`${req.method} ${path}`);
      if (!spec) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Not Found"}');
        return;
      }
      const answer = () => {
        if (spec.handler) return spec.handler(req, res, body);
        const payload = spec.json !== undefined ? JSON.stringify(spec.json) : spec.body ?? '';
        const headers: Record<string, string> = { ...spec.headers };
        if (spec.contentType ?? (spec.json !== undefined ? 'application/json' : undefined)) {
          headers['content-type'] = spec.contentType ?? 'application/json';
        }
        res.writeHead(spec.status ?? 200, headers).end(payload);
      };
      if (spec.delayMs) setTimeout(answer, spec.delayMs).unref();
      else answer();
    });
  }
}
