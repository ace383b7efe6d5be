import { createServer } from 'node:http';
import { listenLocal, type LocalServer } from './local-server.js';

/** One health check as the instance saw it: when, and which Vigil node made it (from its User-Agent). */
export interface SeenCheck {
  readonly at: number;
  readonly node: string;
}

/**
 * Many fake actuator instances behind one `node:http` server on 127.0.0.1: instance `k` lives
 * under `/i/<k>/actuator` (an index with health and info, health, info). Its health status is
 * whatever the test set (UP by default), and every health check is recorded with the node that
 * made it, read from the `User-Agent: Vigil/<version> (node <id>)` every call carries.
 */
export class Fleet {
  readonly #status = new Map<number, string>();
  readonly #checks = new Map<number, SeenCheck[]>();
  /** Reads of each instance's actuator index (endpoint detection), with the node that read it. */
  readonly #detections = new Map<number, SeenCheck[]>();
  #server: LocalServer | undefined;
  port = 0;

  static async start(): Promise<Fleet> {
    const fleet = new Fleet();
    fleet.#server = await listenLocal(createServer((req, res) => {
      const match = /^\/i\/(\d+)\/actuator(?:\/(health|info))?$/.exec(req.url ?? '');
      if (!match) {
        res.writeHead(404).end();
        return;
      }
      const k = Number(match[1]);
      const json = (body: unknown, type = 'application/vnd.spring-boot.actuator.v3+json') => res.writeHead(200, { 'content-type': type }).end(JSON.stringify(body));
      if (match[2] === 'health') {
        const node = /\(node ([^)]+)\)/.exec(String(req.headers['user-agent']))?.[1] ?? '?';
        const list = fleet.#checks.get(k) ?? [];
        list.push({ at: Date.now(), node });
        fleet.#checks.set(k, list);
        json({ status: fleet.#status.get(k) ?? 'UP' });
      } else if (match[2] === 'info') {
        json({ app: { k } });
      } else {
        const node = /\(node ([^)]+)\)/.exec(String(req.headers['user-agent']))?.[1] ?? '?';
        fleet.#detections.set(k, [...(fleet.#detections.get(k) ?? []), { at: Date.now(), node }]);
        const base = `${fleet.origin}/i/${k}/actuator`;
        json({ _links: { self: { href: base }, health: { href: `${base}/health` }, info: { href: `${base}/info` } } });
      }
    }));
    fleet.port = fleet.#server.port;
    return fleet;
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A registration body for instance `k` of application `name`. */
  registration(k: number, name = 'app'): Record<string, unknown> {
    return { name, healthUrl: `${this.origin}/i/${k}/actuator/health`, managementUrl: `${this.origin}/i/${k}/actuator` };
  }

  setStatus(k: number, status: string): void {
    this.#status.set(k, status);
  }

  detectionsOf(k: number): readonly SeenCheck[] {
    return this.#detections.get(k) ?? [];
  }

  checksOf(k: number): readonly SeenCheck[] {
    return this.#checks.get(k) ?? [];
  }

  /** Checks of every instance made at or after `since`. */
  checksSince(since: number): Map<number, SeenCheck[]> {
    const result = new Map<number, SeenCheck[]>();
    for (const [k, list] of this.#checks) result.set(k, list.filter((check) => check.at >= since));
    return result;
  }

  async close(): Promise<void> {
    await this.#server?.close();
  }
}
