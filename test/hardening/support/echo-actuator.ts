import { createServer } from 'node:http';
import { ACTUATOR_V3 } from '../../support/fake-actuator.js';
import { listenLocal, type LocalServer } from '../../support/local-server.js';

/** What the echo instance answers for every path under its management URL except the index. */
export interface Echo {
  readonly method: string;
  /** The request target as received. */
  readonly url: string;
  readonly bodyBytes: number;
}

/**
 * A real node:http instance for fuzzing through the proxy: `/actuator` is an index listing
 * `links`, and every other path answers 200 with an Echo of the request. It counts request body
 * bytes instead of keeping them (a fuzz run sends gigabytes), and counts requests that carried
 * an `Authorization` header (the proxy must never pass the caller's on).
 */
export class EchoActuator {
  requests = 0;
  withAuthorization = 0;
  #listening: LocalServer | undefined;
  port = 0;

  static async start(links: readonly string[] = ['health', 'info', 'metrics', 'env', 'loggers']): Promise<EchoActuator> {
    const echo = new EchoActuator(links);
    await echo.#listen();
    return echo;
  }

  private constructor(readonly links: readonly string[]) {}

  get managementUrl(): string {
    return `http://127.0.0.1:${this.port}/actuator`;
  }

  get healthUrl(): string {
    return `${this.managementUrl}/health`;
  }

  async close(): Promise<void> {
    const listening = this.#listening;
    this.#listening = undefined;
    await listening?.close();
  }

  async #listen(): Promise<void> {
    const server = createServer((req, res) => {
      this.requests += 1;
      if (req.headers.authorization !== undefined) this.withAuthorization += 1;
      let bodyBytes = 0;
      req.on('data', (chunk: Buffer) => {
        bodyBytes += chunk.length;
      });
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const body = path === '/actuator' || path === '/actuator/'
          ? { _links: Object.fromEntries(this.links.map((id) => [id, { href: `${this.managementUrl}/${id}`, templated: false }])) }
          : { method: req.method ?? '', url: req.url ?? '', bodyBytes } satisfies Echo;
        const text = JSON.stringify(body);
        const type = '_links' in body ? ACTUATOR_V3 : 'application/json';
        res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(text) }).end(text);
      });
    });
    this.#listening = await listenLocal(server);
    this.port = this.#listening.port;
  }
}
