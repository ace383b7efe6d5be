import { ErrorReply, createClient, type RedisClientOptions, type RedisClientType } from 'redis';
import { StoreUnavailableError, messageOf, type Logger } from '../../core/plugin-api.js';
import type { ClusterRedisConfig } from './config.js';
import { RedisTimeout, isOutage, outageText } from './redis-errors.js';

export type Client = RedisClientType;

/** How often the link tries again while Redis is unreachable, and how often it says so. */
export const RETRY_MS = 1000;
const WARN_EVERY_MS = 60_000;

/**
 * The node's connections to Redis and what they say about its reachability. Four clients:
 * `main` for commands (node-redis pipelines concurrent ones), `blocking` for the feed's
 * `XREAD BLOCK`, `consumer` for the outbox's `XREADGROUP BLOCK` (a blocked connection serves
 * nothing else), `subscriber` for pub/sub. With Sentinel, the master is asked of the Sentinels on every
 * (re)connect, so a failover is met like an outage: down, then up against the new master.
 *
 * node-redis times out only commands not yet written; a Redis that hangs (SIGSTOP, a stuck disk)
 * leaves written ones waiting forever. So every command here races `command-timeout`, and a
 * command that loses marks Redis unreachable until a PING gets through again.
 */
export class RedisLink {
  #clients: { main: Client; blocking: Client; consumer: Client; subscriber: Client } | undefined;
  /** The connections cannot be trusted again (they timed out, or point at a demoted master). */
  #stale = false;
  #up = false;
  #closed = false;
  #downSince = 0;
  #lastWarning = 0;
  #retry: NodeJS.Timeout | undefined;
  #reconnecting: Promise<void> | undefined;
  readonly #upListeners: (() => void)[] = [];
  readonly #downListeners: (() => void)[] = [];
  readonly #subscriptions = new Map<string, (message: string) => void>();

  constructor(private readonly config: ClusterRedisConfig, private readonly log: Logger) {}

  /** Connects, trying for up to `deadlineMs`; rejects with the reason when Redis stays unreachable. */
  async open(deadlineMs: number): Promise<void> {
    const deadline = Date.now() + deadlineMs;
    for (;;) {
      try {
        await this.#connect();
        return;
      } catch (error) {
        if (Date.now() + RETRY_MS > deadline) throw new Error(`cannot reach Redis at ${this.where()}: ${outageText(error)}`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
      }
    }
  }

  /** Whether Redis answered the last time it was asked. */
  get up(): boolean {
    return this.#up;
  }

  /** When Redis was last found unreachable (0 while up). */
  get downSince(): number {
    return this.#up ? 0 : this.#downSince;
  }

  onUp(listener: () => void): void {
    this.#upListeners.push(listener);
  }

  onDown(listener: () => void): void {
    this.#downListeners.push(listener);
  }

  /** Where Redis is, for messages: the URL without its password, or the Sentinel master's name. */
  where(): string {
    if (this.config.sentinel) return `Sentinel master "${this.config.sentinel['master-name']}" (${this.config.sentinel.nodes.join(', ')})`;
    const url = new URL(this.config.url!);
    url.password = '';
    url.username = '';
    return url.href;
  }

  /** Runs commands on the main connection; StoreUnavailableError when Redis cannot answer now. */
  run<T>(what: string, work: (client: Client) => Promise<T>, timeoutMs = this.config['command-timeout']): Promise<T> {
    return this.#guarded(what, () => this.#clients?.main, work, timeoutMs);
  }

  /**
   * Runs a blocking read on a connection of its own (`feed` for the change feed, `consumer` for
   * the outbox): a blocked connection serves nothing else. `blockMs` is added to the timeout.
   */
  runBlocking<T>(what: string, lane: 'feed' | 'consumer', work: (client: Client) => Promise<T>, blockMs: number): Promise<T> {
    return this.#guarded(what, () => (lane === 'feed' ? this.#clients?.blocking : this.#clients?.consumer), work, blockMs + this.config['command-timeout']);
  }

  /** Resolves once Redis answers again (at once while it does). */
  whenUp(): Promise<void> {
    if (this.#up) return Promise.resolve();
    return new Promise((resolve) => this.#upListeners.push(once(resolve, this.#upListeners)));
  }

  /** Listens on a pub/sub channel, on this connection and every later one. */
  async subscribe(channel: string, listener: (message: string) => void): Promise<void> {
    this.#subscriptions.set(channel, listener);
    await this.#clients?.subscriber.subscribe(channel, listener).catch((error: unknown) => this.log.debug(`SUBSCRIBE ${channel}: ${messageOf(error)}`));
  }

  /** Publishes on a channel; a message lost while Redis is down is lost (pub/sub keeps nothing). */
  async publish(channel: string, message: string): Promise<void> {
    await this.run(`PUBLISH ${channel}`, (client) => client.publish(channel, message));
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#retry);
    await this.#destroy();
  }

  async #guarded<T>(what: string, pick: () => Client | undefined, work: (client: Client) => Promise<T>, timeoutMs: number): Promise<T> {
    const client = pick();
    if (client && this.#up && !client.isReady) {
      // One connection died on its own (node-redis does not reconnect it: that is the link's job):
      // the link is down until every connection is made afresh, or this caller would retry forever.
      this.#stale = true;
      this.#down(new Error(`${what}: its connection to Redis is not ready`));
    }
    if (!client || !this.#up || !client.isReady) throw new StoreUnavailableError(`Redis is unreachable (${this.where()})`);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new RedisTimeout(`a command (${what}) got no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      return await Promise.race([work(client), late]);
    } catch (error) {
      if (pick() !== client && !(error instanceof ErrorReply)) {
        // The link made its connections afresh (an outage began) while this command waited: the
        // old connection's pending commands are failed by node-redis, whatever became of them.
        throw new StoreUnavailableError(`Redis is unreachable (${this.where()}): ${outageText(error)}`, 5, { cause: error });
      }
      if (isOutage(error)) {
        // A command that got no answer, or a master that became a replica: start afresh.
        if (error instanceof RedisTimeout || /^READONLY/.test(messageOf(error))) this.#stale = true;
        this.#down(error);
        throw new StoreUnavailableError(`Redis is unreachable (${this.where()}): ${outageText(error)}`, 5, { cause: error });
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  async #connect(): Promise<void> {
    await this.#destroy();
    const options = await this.#options();
    const make = () => {
      const client = createClient(options) as Client;
      // Unheard, node-redis's 'error' events would crash the process; the link reports outages itself.
      client.on('error', (error: unknown) => this.log.debug(`Redis connection: ${outageText(error)}`));
      client.on('end', () => {
        if (this.#clients && Object.values(this.#clients).includes(client)) this.#down(new Error('the connection to Redis closed unexpectedly'));
      });
      return client;
    };
    const clients = { main: make(), blocking: make(), consumer: make(), subscriber: make() };
    try {
      await withTimeout(Promise.all(Object.values(clients).map((client) => client.connect())), this.config['command-timeout'] * 2, 'connecting to Redis');
      await withTimeout(clients.main.ping(), this.config['command-timeout'], 'PING');
    } catch (error) {
      destroyAll(clients);
      throw error;
    }
    for (const [channel, listener] of this.#subscriptions) await clients.subscriber.subscribe(channel, listener);
    this.#clients = clients;
    this.#stale = false;
    this.#setUp();
  }

  /** Connection options: the URL, or the master the Sentinels name now. */
  async #options(): Promise<RedisClientOptions> {
    const timeout = this.config['command-timeout'];
    // Reconnecting is the link's job (a failover may have moved the master); commands fail fast meanwhile.
    const common = { disableOfflineQueue: true, socket: { connectTimeout: timeout, reconnectStrategy: false as const } };
    const sentinel = this.config.sentinel;
    if (!sentinel) return { ...common, url: this.config.url! };
    const master = await this.#askSentinels(sentinel.nodes, sentinel['master-name'], sentinel['sentinel-password']);
    return { ...common, socket: { ...common.socket, host: master.host, port: master.port }, ...(sentinel.password ? { password: sentinel.password } : {}) };
  }

  async #askSentinels(nodes: readonly string[], name: string, password: string | undefined): Promise<{ host: string; port: number }> {
    const problems: string[] = [];
    for (const node of nodes) {
      const at = node.lastIndexOf(':');
      const host = node.slice(0, at).replace(/^\[(.*)\]$/, '$1');
      const client = createClient({ socket: { host, port: Number(node.slice(at + 1)), connectTimeout: this.config['command-timeout'], reconnectStrategy: false }, ...(password ? { password } : {}) });
      client.on('error', () => undefined);
      try {
        await withTimeout(client.connect(), this.config['command-timeout'], `connecting to Sentinel ${node}`);
        const reply = await withTimeout(client.sendCommand<[string, string] | null>(['SENTINEL', 'GET-MASTER-ADDR-BY-NAME', name]), this.config['command-timeout'], 'SENTINEL GET-MASTER-ADDR-BY-NAME');
        if (reply) return { host: reply[0], port: Number(reply[1]) };
        problems.push(`${node} knows no master "${name}"`);
      } catch (error) {
        problems.push(`${node}: ${messageOf(error)}`);
      } finally {
        client.destroy();
      }
    }
    throw new Error(`no Sentinel named the master: ${problems.join('; ')}`);
  }

  #setUp(): void {
    const wasDown = !this.#up && this.#downSince > 0;
    this.#up = true;
    if (wasDown) this.log.info(`Redis is reachable again (${this.where()}) after ${Math.round((Date.now() - this.#downSince) / 1000)} s`);
    this.#downSince = 0;
    for (const listener of [...this.#upListeners]) listener();
  }

  #down(reason: unknown): void {
    if (this.#closed) return;
    const now = Date.now();
    if (this.#up || this.#downSince === 0) {
      this.#up = false;
      this.#downSince = now;
      this.#lastWarning = now;
      this.log.warn(`Redis is unreachable (${this.where()}): ${outageText(reason)}; serving reads from this node's copy, refusing writes with 503`);
      for (const listener of [...this.#downListeners]) listener();
    }
    this.#scheduleRecovery();
  }

  /** While down: a PING on the connections there are, or a new connection (re-asking Sentinel). */
  #scheduleRecovery(): void {
    if (this.#retry || this.#closed) return;
    this.#retry = setTimeout(() => {
      this.#retry = undefined;
      this.#reconnecting ??= this.#recover().finally(() => {
        this.#reconnecting = undefined;
      });
    }, RETRY_MS);
    this.#retry.unref();
  }

  async #recover(): Promise<void> {
    if (this.#closed || this.#up) return;
    const now = Date.now();
    if (now - this.#lastWarning >= WARN_EVERY_MS) {
      this.#lastWarning = now;
      this.log.warn(`Redis is still unreachable (${this.where()}) after ${Math.round((now - this.#downSince) / 1000)} s`);
    }
    try {
      const clients = this.#clients;
      if (clients && !this.#stale && Object.values(clients).every((client) => client.isReady)) {
        // A hung Redis that resumed: the old connections answer again.
        await withTimeout(clients.main.ping(), this.config['command-timeout'], 'PING');
        this.#setUp();
      } else {
        await this.#connect();
      }
    } catch (error) {
      this.log.debug(`Redis still unreachable: ${outageText(error)}`);
      this.#stale = true;
      this.#scheduleRecovery();
    }
  }

  async #destroy(): Promise<void> {
    const clients = this.#clients;
    this.#clients = undefined;
    if (clients) destroyAll(clients);
  }
}

/** A listener that takes itself out of `list` the first time it runs. */
function once(resolve: () => void, list: (() => void)[]): () => void {
  const listener = () => {
    list.splice(list.indexOf(listener), 1);
    resolve();
  };
  return listener;
}

function destroyAll(clients: Record<string, Client>): void {
  for (const client of Object.values(clients)) {
    try {
      client.destroy();
    } catch {
      // already closed
    }
  }
}

/** Waits `ms`, or until `signal` aborts (a loop waiting out an outage stops at close). */
export function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

async function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([work, new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
    })]);
  } finally {
    clearTimeout(timer);
  }
}
