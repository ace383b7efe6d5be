import { StoreUnavailableError, messageOf, type EventOutbox, type Logger, type OutboxItem } from '../../core/plugin-api.js';
import type { Keys } from './keys.js';
import { pause, type RedisLink } from './redis-link.js';

const GROUP = 'notify';
const BLOCK_MS = 1000;
/** The least wait before a failed outbox read is tried again. */
const RETRY_PAUSE_MS = 100;
const COUNT = 50;

type StreamEntry = [id: string, fields: string[]];

export interface OutboxOptions {
  readonly nodeId: string;
  readonly heartbeatInterval: number;
  /** An item left pending this long by a node is taken over: that node is gone. */
  readonly heartbeatTtl: number;
  readonly log: Logger;
  /** Resolves once this node's snapshot holds `seq` (so the handler sees the instance as of its event). */
  readonly applied: (seq: number) => Promise<void>;
  /** The item an entry holds, or undefined when it is refused (logged there). */
  readonly read: (fields: Readonly<Record<string, string>>, entry: string) => OutboxItem | undefined;
}

/**
 * EVENT_OUTBOX in Redis. While some node consumes it, every append also writes an item to the
 * outbox stream in the same script as the event (so no event is ever without its item); nodes
 * read it through one consumer group, so each item goes to one node. An item stays pending until
 * its handler settles, its idle time refreshed every beat while the handler works (retries can
 * take minutes); a node that dies leaves its items pending and idle, and after `heartbeat-ttl`
 * another node claims them (XAUTOCLAIM): at least once, duplicates only across a crash.
 */
export class RedisOutbox implements EventOutbox {
  readonly #handlers: ((item: OutboxItem) => Promise<void>)[] = [];
  readonly #working = new Set<string>();
  #running = false;
  #stopping = new AbortController();
  #loop: Promise<void> | undefined;
  #timer: NodeJS.Timeout | undefined;

  constructor(private readonly link: RedisLink, private readonly keys: Keys, private readonly options: OutboxOptions) {}

  consume(handler: (item: OutboxItem) => Promise<void>): () => void {
    this.#handlers.push(handler);
    if (!this.#running) this.#start();
    return () => {
      this.#handlers.splice(this.#handlers.indexOf(handler), 1);
      if (this.#handlers.length === 0) void this.stop();
    };
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.#stopping.abort();
    clearInterval(this.#timer);
    await this.#loop;
  }

  /** Trims what every consumer is done with: everything before the oldest pending item (or all read ones). */
  async trim(): Promise<void> {
    const { keys, link } = this;
    await link.run('outbox trim', async (client) => {
      const summary = await client.sendCommand<[number, string | null, string | null, unknown]>(['XPENDING', keys.outbox, GROUP]).catch(() => undefined);
      let floor = summary?.[1] ?? undefined;
      if (!floor) {
        const groups = await client.sendCommand<unknown[][]>(['XINFO', 'GROUPS', keys.outbox]).catch(() => []);
        const fields = groups[0] ?? [];
        const at = fields.indexOf('last-delivered-id');
        floor = at >= 0 ? String(fields[at + 1]) : undefined;
        // Everything read and acknowledged: the last one read may go too.
        if (floor) floor = nextId(floor);
      }
      if (floor) await client.sendCommand(['XTRIM', keys.outbox, 'MINID', floor]);
    });
  }

  #start(): void {
    this.#running = true;
    this.#stopping = new AbortController();
    const beat = () => void this.#beat().catch((error: unknown) => {
      if (!(error instanceof StoreUnavailableError)) this.options.log.warn(`outbox upkeep failed: ${messageOf(error)}`);
    });
    this.#timer = setInterval(beat, this.options.heartbeatInterval);
    this.#timer.unref();
    beat();
    this.#loop = this.#read();
  }

  /** Keeps the outbox on, keeps this node's items its own, and takes over items of nodes that died. */
  async #beat(): Promise<void> {
    const { keys, link, options } = this;
    await link.run('outbox on', async (client) => {
      await client.sendCommand(['XGROUP', 'CREATE', keys.outbox, GROUP, '$', 'MKSTREAM']).catch((error: unknown) => {
        if (!messageOf(error).startsWith('BUSYGROUP')) throw error;
      });
      await client.set(keys.outboxOn, options.nodeId, { PX: options.heartbeatTtl * 3 });
      if (this.#working.size > 0) await client.sendCommand(['XCLAIM', keys.outbox, GROUP, options.nodeId, '0', ...this.#working, 'JUSTID']);
    });
    const claimed = await link.run('outbox claim', (client) => client.sendCommand<[string, StreamEntry[], unknown]>(
      ['XAUTOCLAIM', keys.outbox, GROUP, options.nodeId, String(options.heartbeatTtl), '0-0', 'COUNT', String(COUNT)]));
    const taken = claimed[1].filter((entry) => entry !== null && !this.#working.has(entry[0]));
    if (taken.length > 0) options.log.info(`took over ${taken.length} notification item(s) a node left unfinished`);
    for (const entry of taken) this.#handle(entry);
  }

  async #read(): Promise<void> {
    const { keys, link, options } = this;
    while (this.#running) {
      try {
        const reply = await link.runBlocking('XREADGROUP outbox', 'consumer', (client) => client.sendCommand<[string, StreamEntry[]][] | null>(
          ['XREADGROUP', 'GROUP', GROUP, options.nodeId, 'COUNT', String(COUNT), 'BLOCK', String(BLOCK_MS), 'STREAMS', keys.outbox, '>']), BLOCK_MS);
        for (const entry of reply?.[0]?.[1] ?? []) this.#handle(entry);
      } catch (error) {
        if (!this.#running) return;
        // NOGROUP: the group is made at the next beat (Redis may have lost it).
        if (!(error instanceof StoreUnavailableError) && !messageOf(error).startsWith('NOGROUP')) options.log.warn(`reading the outbox failed: ${messageOf(error)}`);
        // Never at once again: an error Redis keeps giving would otherwise spin this loop.
        await pause(RETRY_PAUSE_MS, this.#stopping.signal);
        await Promise.race([link.whenUp(), pause(BLOCK_MS, this.#stopping.signal)]);
      }
    }
  }

  #handle([id, flat]: StreamEntry): void {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    const item = this.options.read(fields, id);
    if (!item) {
      // Acknowledged, so no node takes it up again: nothing can be done with it.
      void this.link.run('XACK', (client) => client.sendCommand(['XACK', this.keys.outbox, GROUP, id])).catch(() => undefined);
      return;
    }
    this.#working.add(id);
    void (async () => {
      await this.options.applied(item.seq);
      await Promise.all(this.#handlers.map((handler) => handler(item)));
      await this.link.run('XACK', (client) => client.sendCommand(['XACK', this.keys.outbox, GROUP, id]));
    })().then(() => this.#working.delete(id), (error: unknown) => {
      // Left pending: after heartbeat-ttl of idleness some node (maybe this one) tries again.
      this.#working.delete(id);
      this.options.log.warn(`notification item ${id} (instance ${item.instance}) not finished: ${messageOf(error)}; it will be tried again`);
    });
  }
}

/** The stream id right after `id`. */
function nextId(id: string): string {
  const [ms, n] = id.split('-');
  return `${ms}-${Number(n) + 1}`;
}
