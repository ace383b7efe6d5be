import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';

/**
 * A TCP relay between the browser and a daemon: it can cut every open connection (a network drop)
 * and point new ones at another upstream (a restarted server), and it keeps the head of each
 * request so a test can read what the browser sent when it reconnected.
 */
export class TcpRelay {
  readonly requestHeads: string[] = [];
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;
  port = 0;

  constructor(private upstream: { host: string; port: number }) {}

  static async start(upstreamUrl: string): Promise<TcpRelay> {
    const relay = new TcpRelay(TcpRelay.target(upstreamUrl));
    const server = createServer((client) => relay.#relay(client));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    relay.#server = server;
    relay.port = (server.address() as AddressInfo).port;
    return relay;
  }

  private static target(url: string): { host: string; port: number } {
    const { hostname, port } = new URL(url);
    return { host: hostname, port: Number(port) };
  }

  get origin(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Where new connections go from now on. */
  pointAt(upstreamUrl: string): void {
    this.upstream = TcpRelay.target(upstreamUrl);
  }

  /** Cuts every open connection, both ways, as a network failure would. */
  dropAll(): void {
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
  }

  async close(): Promise<void> {
    this.dropAll();
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve());
  }

  #relay(client: Socket): void {
    const server = connect(this.upstream.port, this.upstream.host);
    this.#sockets.add(client);
    this.#sockets.add(server);
    client.on('data', (chunk: Buffer) => {
      // Keep-alive connections carry several requests; each head starts with a request line.
      const text = chunk.toString('latin1');
      if (/^[A-Z]+ \S+ HTTP\/1\.1\r\n/.test(text)) this.requestHeads.push(text.split('\r\n\r\n')[0]!);
    });
    client.pipe(server);
    server.pipe(client);
    const end = () => {
      client.destroy();
      server.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(server);
    };
    client.on('error', end).on('close', end);
    server.on('error', end).on('close', end);
  }
}
