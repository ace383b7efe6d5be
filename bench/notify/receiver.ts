import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

/** A round that has not received everything by then counts what it got as delivered, the rest as lost. */
export const ROUND_TIMEOUT_MS = 30_000;

/**
 * The webhook receiver of the notify benchmarks: counts distinct `webhook-id`s and notes when the
 * last expected one arrived. With `accepts`, each body is read and one it refuses (the routed
 * bench: arrived at another team's target) is counted as `misrouted` instead.
 */
export class Receiver {
  readonly ids = new Set<string>();
  misrouted = 0;
  lastAt = 0;
  #expect = 0;
  #done: (() => void) | undefined;
  readonly server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    if (this.accepts) req.on('data', (chunk: Buffer) => chunks.push(chunk));
    else req.resume();
    req.on('end', () => {
      res.writeHead(200).end();
      const id = String(req.headers['webhook-id']);
      if (this.ids.has(id)) return;
      if (this.accepts && !this.accepts(req.url ?? '', JSON.parse(Buffer.concat(chunks).toString('utf8')))) {
        this.misrouted += 1;
        return;
      }
      this.ids.add(id);
      this.lastAt = performance.now();
      if (this.ids.size >= this.#expect) this.#done?.();
    });
  });

  constructor(private readonly accepts?: (path: string, body: unknown) => boolean) {}

  /** Resolves when `count` distinct notifications arrived since this call, or after the timeout. */
  expect(count: number): Promise<void> {
    this.ids.clear();
    this.#expect = count;
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ROUND_TIMEOUT_MS);
      this.#done = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}
