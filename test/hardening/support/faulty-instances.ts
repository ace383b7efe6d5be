import { EventEmitter, once } from 'node:events';
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net';

export const MB = 1024 * 1024;

/**
 * A real server standing in for an instance that misbehaves in one particular way. Each records
 * what happened on its side of the connection, so a test can await requests and read, for
 * example, how many bytes Vigil let through before it dropped the connection.
 */
export class FaultyInstance extends EventEmitter {
  /** Requests (or connections, for raw servers) received. */
  requests = 0;
  /** Requests received whose connection is still open and unanswered. */
  pending = 0;
  /** Body bytes the server could hand to the connection before it closed, summed over every request. */
  bytesSent = 0;
  /** The same, one entry per request whose connection has closed. */
  readonly bytesPerRequest: number[] = [];
  /** For `answersLate`: answers attempted after Vigil had given up on the call. */
  lateAnswers = 0;
  /** For `flips`: the status each request was answered with, in order. */
  readonly answers: string[] = [];
  readonly #sockets = new Set<Socket>();
  port = 0;

  private constructor(readonly fault: string, private readonly server: Server) {
    super();
    server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get healthUrl(): string {
    return `http://127.0.0.1:${this.port}/actuator/health`;
  }

  /** Resolves when the `count`-th request (1-based, counting from the start) has arrived. */
  async requestNumber(count: number): Promise<void> {
    while (this.requests < count) await once(this, 'request');
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  static async start(fault: Fault, options: { readonly lateByMs?: number; readonly dripEveryMs?: number } = {}): Promise<FaultyInstance> {
    let instance: FaultyInstance;
    const arrived = () => {
      instance.requests += 1;
      instance.emit('request');
    };
    const http = (handler: (req: IncomingMessage, res: ServerResponse) => void) => createHttpServer((req, res) => {
      arrived();
      handler(req, res);
    });
    const open = (res: ServerResponse) => {
      instance.pending += 1;
      res.once('close', () => {
        instance.pending -= 1;
      });
    };
    const servers: Record<Fault, () => Server> = {
      'never answers': () => http((_req, res) => open(res)),
      'answers after the timeout': () => http((_req, res) => {
        open(res);
        setTimeout(() => {
          if (res.destroyed) instance.lateAnswers += 1;
          else res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"UP"}');
        }, options.lateByMs ?? 0).unref();
      }),
      'drips bytes slowly': () => http((_req, res) => {
        open(res);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
        const body = Buffer.from(`{"status":"UP","pad":"${'x'.repeat(83)}"}`);
        let sent = 0;
        const timer = setInterval(() => {
          if (res.destroyed || sent >= body.length) return clearInterval(timer);
          res.write(body.subarray(sent, sent + 1), (error) => {
            if (!error) instance.bytesSent += 1;
          });
          sent += 1;
        }, options.dripEveryMs ?? 100);
        res.once('close', () => {
          clearInterval(timer);
          instance.bytesPerRequest.push(sent);
        });
      }),
      'resets the connection': () => http((req) => req.socket.resetAndDestroy()),
      'returns garbage': () => createNetServer((socket) => {
        socket.on('error', () => undefined);
        socket.once('data', () => {
          arrived();
          socket.end('HELLO, THIS IS NOT HTTP\r\n\r\n\u0000\u0001\u00ff');
        });
      }),
      'returns a 100 MB health body': () => http((_req, res) => hugeBody(res, true)),
      'returns a 100 MB chunked health body': () => http((_req, res) => hugeBody(res, false)),
      'closes mid-body': () => http((req, res) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"status":"UP","details":{', () => req.socket.destroy());
      }),
      'changes status every check': () => http((_req, res) => {
        const status = instance.answers.length % 2 === 0 ? 'UP' : 'DOWN';
        instance.answers.push(status);
        res.writeHead(status === 'UP' ? 200 : 503, { 'content-type': 'application/json' }).end(JSON.stringify({ status }));
      }),
      'nests its JSON 5,000 deep': () => http((_req, res) => {
        res.writeHead(200, { 'content-type': 'application/json' })
          .end(`{"status":"UP","details":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`);
      }),
    };
    /** Pumps 100 MB with backpressure, counting what the socket accepted, until the reader drops the connection. */
    function hugeBody(res: ServerResponse, declared: boolean): void {
      res.writeHead(200, { 'content-type': 'application/json', ...(declared ? { 'content-length': String(100 * MB) } : {}) });
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      let queued = 0;
      let accepted = 0;
      res.once('close', () => instance.bytesPerRequest.push(accepted));
      const pump = () => {
        while (!res.destroyed && queued < 100 * MB) {
          queued += chunk.length;
          const more = res.write(chunk, (error) => {
            if (error) return;
            accepted += chunk.length;
            instance.bytesSent += chunk.length;
          });
          if (!more) {
            res.once('drain', pump);
            return;
          }
        }
        if (!res.destroyed) res.end();
      };
      res.on('error', () => undefined);
      pump();
    }
    const server = servers[fault]();
    instance = new FaultyInstance(fault, server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    instance.port = (server.address() as AddressInfo).port;
    return instance;
  }
}

export type Fault =
  | 'never answers'
  | 'answers after the timeout'
  | 'drips bytes slowly'
  | 'resets the connection'
  | 'returns garbage'
  | 'returns a 100 MB health body'
  | 'returns a 100 MB chunked health body'
  | 'closes mid-body'
  | 'changes status every check'
  | 'nests its JSON 5,000 deep';
