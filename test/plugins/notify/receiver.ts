import { EventEmitter } from 'node:events';
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import { listenLocal, type LocalServer } from '../../support/local-server.js';

export interface Received {
  readonly method: string;
  /** Path and query as received. */
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  /** The body parsed as JSON, or undefined. */
  readonly json: unknown;
  /** The status it was answered with. */
  status: number;
}

/** How the receiver answers one request; `gate` holds the answer until it resolves. */
export interface Answer {
  readonly status: number;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly gate?: Promise<unknown>;
}

/**
 * A webhook receiver on 127.0.0.1: records every request with its exact headers and body and
 * answers from a script (`answer(...)`, in order), then 200 (or `fallback`). Tests await
 * `received(n)` instead of sleeping.
 */
export class Receiver {
  /** Requests answered, in the order of their answers. */
  readonly requests: Received[] = [];
  /** Every request as it arrives, answered yet or held by a `gate`. */
  readonly arrivals: Received[] = [];
  readonly #script: Answer[] = [];
  readonly #events = new EventEmitter();
  #server: LocalServer | undefined;
  fallback: Answer = { status: 200 };
  /** Answers by path, before the script (e.g. one status for `/close` paths). */
  route: ((req: Received) => Answer | undefined) | undefined;

  /** Listens on a free port, or on `port` (a receiver started again after a stop). */
  static async start(port = 0): Promise<Receiver> {
    const receiver = new Receiver();
    receiver.#server = await listenLocal(createServer((req, res) => receiver.#handle(req, res)), port);
    return receiver;
  }

  get url(): string {
    return `http://127.0.0.1:${this.#server!.port}`;
  }

  get port(): number {
    return this.#server!.port;
  }

  /** Queues answers for the next requests. */
  answer(...answers: Answer[]): void {
    this.#script.push(...answers);
  }

  /** Resolves once `count` requests (matching `where`) arrived; rejects after `timeoutMs`. */
  received(count: number, where: (req: Received) => boolean = () => true, timeoutMs = 8000): Promise<Received[]> {
    return this.#waitFor(this.requests, count, where, timeoutMs);
  }

  /** Resolves once `count` requests (matching `where`) arrived, answered or not. */
  arrived(count: number, where: (req: Received) => boolean = () => true, timeoutMs = 8000): Promise<Received[]> {
    return this.#waitFor(this.arrivals, count, where, timeoutMs);
  }

  #waitFor(list: readonly Received[], count: number, where: (req: Received) => boolean, timeoutMs: number): Promise<Received[]> {
    const matching = () => list.filter(where);
    if (matching().length >= count) return Promise.resolve(matching());
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#events.off('request', check);
        reject(new Error(`only ${matching().length} of ${count} requests arrived within ${timeoutMs} ms: ${JSON.stringify(list.map((r) => r.body.slice(0, 200)))}`));
      }, timeoutMs);
      const check = () => {
        if (matching().length < count) return;
        clearTimeout(timer);
        this.#events.off('request', check);
        resolve(matching());
      };
      this.#events.on('request', check);
    });
  }

  /** The JSON bodies of the requests answered 2xx, in arrival order. */
  delivered(): unknown[] {
    return this.requests.filter((r) => r.status >= 200 && r.status < 300).map((r) => r.json);
  }

  close(): Promise<void> {
    return this.#server?.close() ?? Promise.resolve();
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body ? JSON.parse(body) : undefined;
      } catch {
        json = undefined;
      }
      const received: Received = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json, status: 0 };
      this.arrivals.push(received);
      this.#events.emit('request');
      const answer = this.route?.(received) ?? this.#script.shift() ?? this.fallback;
      const reply = () => {
        received.status = answer.status;
        this.requests.push(received);
        res.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers }).end(answer.body ?? '');
        this.#events.emit('request');
      };
      if (answer.gate) void answer.gate.then(reply);
      else reply();
    });
  }
}
