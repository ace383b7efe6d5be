import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * What the link between one Vigil node and Redis does, as a real network fails:
 * - `pass`: bytes flow both ways;
 * - `cut`: connections refused (nothing listens) and those open are reset;
 * - `black-hole`: packets dropped both ways, on open connections and new ones: a connection
 *   hangs (TCP retransmits, so what was sent arrives after the heal if the connection is still
 *   open then);
 * - `latency`: every byte from the node to Redis is held `ms` longer (each round trip grows by `ms`);
 * - `half-open`: the connections open now lost their other end without a word (a middlebox that
 *   dropped their state, a peer that rebooted): nothing sent on them ever arrives or comes back,
 *   nothing closes them; new connections work.
 */
export type LinkFault = 'pass' | 'cut' | 'black-hole' | 'latency' | 'half-open';

/** One direction of one connection: bytes in order, held back, delayed or dropped as the fault says. */
class Lane {
  readonly #queue: { at: number; chunk: Buffer }[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** Held until released (a black hole). */
  held = false;
  /** Dropped for good (half-open). */
  dead = false;

  constructor(private readonly out: Socket) {}

  push(chunk: Buffer, delayMs: number): void {
    if (this.dead) return;
    const last = this.#queue.at(-1)?.at ?? 0;
    this.#queue.push({ at: Math.max(Date.now() + delayMs, last), chunk });
    this.drain();
  }

  /** Writes every chunk that is due, in order; waits for the next one. */
  drain(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.held || this.dead || this.out.destroyed) return;
    const now = Date.now();
    while (this.#queue.length > 0 && this.#queue[0]!.at <= now) this.out.write(this.#queue.shift()!.chunk);
    const next = this.#queue[0];
    if (next) this.#timer = setTimeout(() => this.drain(), next.at - now);
  }

  kill(): void {
    this.dead = true;
    this.#queue.length = 0;
    clearTimeout(this.#timer);
  }
}

interface Pair {
  readonly node: Socket;
  readonly redis: Socket;
  readonly up: Lane;
  readonly down: Lane;
}

/**
 * A TCP proxy of the test's own between one node and Redis (`node:net`, loopback), whose link
 * the test breaks in the ways a network does (`LinkFault`), and heals.
 */
export class FaultProxy {
  readonly #pairs = new Set<Pair>();
  #server: Server | undefined;
  #fault: LinkFault = 'pass';
  #latencyMs = 0;
  port = 0;

  private constructor(private readonly target: { readonly host: string; readonly port: number }) {}

  static async start(redisPort: number): Promise<FaultProxy> {
    const proxy = new FaultProxy({ host: '127.0.0.1', port: redisPort });
    await proxy.#listen(0);
    return proxy;
  }

  /** The URL a node is given instead of Redis's. */
  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get fault(): LinkFault {
    return this.#fault;
  }

  /** Connections open through the proxy now. */
  get connections(): number {
    return this.#pairs.size;
  }

  /** Breaks the link as `fault` says (`latency` adds `ms`, 200 unless told). */
  async inject(fault: Exclude<LinkFault, 'pass'>, ms = 200): Promise<void> {
    await this.heal();
    this.#fault = fault;
    if (fault === 'cut') {
      await this.#stopListening();
      for (const pair of this.#pairs) this.#reset(pair);
    } else if (fault === 'black-hole') {
      for (const pair of this.#pairs) pair.up.held = pair.down.held = true;
    } else if (fault === 'latency') {
      this.#latencyMs = ms;
    } else {
      // The far end is gone: Redis sees its client leave; the node sees nothing at all.
      for (const pair of this.#pairs) {
        pair.up.kill();
        pair.down.kill();
        pair.redis.destroy();
      }
    }
  }

  /** The link works again: refused connections are accepted, held bytes flow on, no latency is added. */
  async heal(): Promise<void> {
    const was = this.#fault;
    this.#fault = 'pass';
    this.#latencyMs = 0;
    if (was === 'cut') await this.#listen(this.port);
    for (const pair of this.#pairs) {
      pair.up.held = pair.down.held = false;
      pair.up.drain();
      pair.down.drain();
    }
  }

  async close(): Promise<void> {
    for (const pair of this.#pairs) this.#reset(pair);
    await this.#stopListening();
  }

  #accept(node: Socket): void {
    const redis = connect(this.target.port, this.target.host);
    const pair: Pair = { node, redis, up: new Lane(redis), down: new Lane(node) };
    this.#pairs.add(pair);
    if (this.#fault === 'black-hole') pair.up.held = pair.down.held = true;
    node.on('data', (chunk: Buffer) => pair.up.push(chunk, this.#latencyMs));
    redis.on('data', (chunk: Buffer) => pair.down.push(chunk, 0));
    const end = () => {
      // A half-open connection's node side lives on until the node gives up on it.
      if (pair.up.dead && !node.destroyed && redis.destroyed) return;
      this.#pairs.delete(pair);
      pair.up.kill();
      pair.down.kill();
      node.destroy();
      redis.destroy();
    };
    node.on('error', end).on('close', () => {
      this.#pairs.delete(pair);
      pair.up.kill();
      pair.down.kill();
      redis.destroy();
    });
    redis.on('error', end).on('close', end);
  }

  #reset(pair: Pair): void {
    this.#pairs.delete(pair);
    pair.up.kill();
    pair.down.kill();
    pair.node.resetAndDestroy();
    pair.redis.destroy();
  }

  #listen(port: number): Promise<void> {
    const server = createServer((socket) => this.#accept(socket));
    this.#server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        this.port = (server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  /** Nothing listens from now on (connections already accepted are the caller's to end). */
  #stopListening(): Promise<void> {
    this.#server?.close();
    this.#server = undefined;
    // The listening handle is closed on the next turn of the loop; the port is free after it.
    return new Promise((resolve) => setImmediate(resolve));
  }
}
