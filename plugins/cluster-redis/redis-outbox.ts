import { StoreUnavailableError, messageOf, type EventOutbox, type Logger, type OutboxItem } from '../../core/plugin-api.js';
import type { Keys } from './keys.js';
import { LEASE_MARGIN } from './membership.js';
import { pause, type RedisLink } from './redis-link.js';
import { Script } from './scripts.js';

const GROUP = 'notify';
const BLOCK_MS = 1000;
/** The least wait before a failed outbox read is tried again. */
const RETRY_PAUSE_MS = 100;
const COUNT = 50;

type StreamEntry = [id: string, fields: string[]];

/**
 * Refreshes this consumer's claim on the items it works on, those only: an item another node
 * took over meanwhile (this one was paused or cut off past its claim) stays theirs.
 * KEYS: outbox. ARGV: group, consumer, ids. Returns the ids still this consumer's.
 */
const KEEP_CLAIMS = new Script('outbox-keep-claims', `
local kept = {}
for i = 3, #ARGV do
  local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[i], ARGV[i], 1)
  if p[1] and p[1][2] == ARGV[2] then
    redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[i], 'JUSTID')
    kept[#kept + 1] = ARGV[i]
  end
end
return kept`);

/** This node's claim on one item: until when (its own clock) no other node can have taken it, and whether one did. */
interface Claim {
  until: number;
  lost: boolean;
}

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
 *
 * The claim is a lease: it counts on this node's clock until `heartbeat-ttl` (less the margin)
 * after the start of its last refresh that got through, and a refresh keeps only items still this
 * node's. A node paused or cut off past it finds `held()` false before its next attempt, so it
 * does not send again what the node that took the item over sends (only an attempt already on
 * the wire when the pause began can arrive twice).
 */
export class RedisOutbox implements EventOutbox {
  readonly #handlers: ((item: OutboxItem) => Promise<void>)[] = [];
  readonly #working = new Map<string, Claim>();
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
    const started = Date.now();
    await link.run('outbox on', async (client) => {
      await client.sendCommand(['XGROUP', 'CREATE', keys.outbox, GROUP, '$', 'MKSTREAM']).catch((error: unknown) => {
        if (!messageOf(error).startsWith('BUSYGROUP')) throw error;
      });
      await client.set(keys.outboxOn, options.nodeId, { PX: options.heartbeatTtl * 3 });
      const working = [...this.#working].filter(([, claim]) => !claim.lost).map(([id]) => id);
      if (working.length === 0) return;
      const kept = new Set(await KEEP_CLAIMS.run<string[]>(client, [keys.outbox], [GROUP, options.nodeId, ...working]));
      for (const id of working) {
        const claim = this.#working.get(id);
        if (!claim) continue;
        if (kept.has(id)) claim.until = this.#claimUntil(started);
        else {
          claim.lost = true;
          options.log.info(`notification item ${id} was taken over by another node while this one could not renew its claim: it is theirs to send`);
        }
      }
    });
    const claimed = await link.run('outbox claim', (client) => client.sendCommand<[string, StreamEntry[], unknown]>(
      ['XAUTOCLAIM', keys.outbox, GROUP, options.nodeId, String(options.heartbeatTtl), '0-0', 'COUNT', String(COUNT)]));
    const taken = claimed[1].filter((entry) => entry !== null && !this.#working.has(entry[0]));
    if (taken.length > 0) options.log.info(`took over ${taken.length} notification item(s) a node left unfinished`);
    for (const entry of taken) this.#handle(entry, started);
  }

  /** A claim made or refreshed by a command sent at `started` counts until then. */
  #claimUntil(started: number): number {
    return started + this.options.heartbeatTtl * (1 - LEASE_MARGIN);
  }

  async #read(): Promise<void> {
    const { keys, link, options } = this;
    while (this.#running) {
      try {
        // An entry is delivered to this node after the read was sent, so its claim counts from then at least.
        const started = Date.now();
        const reply = await link.runBlocking('XREADGROUP outbox', 'consumer', (client) => client.sendCommand<[string, StreamEntry[]][] | null>(
          ['XREADGROUP', 'GROUP', GROUP, options.nodeId, 'COUNT', String(COUNT), 'BLOCK', String(BLOCK_MS), 'STREAMS', keys.outbox, '>']), BLOCK_MS);
        for (const entry of reply?.[0]?.[1] ?? []) this.#handle(entry, started);
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

  #handle([id, flat]: StreamEntry, claimed: number): void {
    const fields: Record<string, string> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
    const item = this.options.read(fields, id);
    if (!item) {
      // Acknowledged, so no node takes it up again: nothing can be done with it.
      void this.link.run('XACK', (client) => client.sendCommand(['XACK', this.keys.outbox, GROUP, id])).catch(() => undefined);
      return;
    }
    const claim: Claim = { until: this.#claimUntil(claimed), lost: false };
    this.#working.set(id, claim);
    const held = () => !claim.lost && Date.now() < claim.until;
    void (async () => {
      await this.options.applied(item.seq);
      await Promise.all(this.#handlers.map((handler) => handler({ ...item, held })));
      await this.link.run('XACK', (client) => client.sendCommand(['XACK', this.keys.outbox, GROUP, id]));
    })().then(() => this.#working.delete(id), (error: unknown) => {
      // Left pending: after heartbeat-ttl of idleness some node (maybe this one) tries again.
      this.#working.delete(id);
      if (!held()) return;
      this.options.log.warn(`notification item ${id} (instance ${item.instance}) not finished: ${messageOf(error)}; it will be tried again`);
    });
  }
}

/** The stream id right after `id`. */
function nextId(id: string): string {
  const [ms, n] = id.split('-');
  return `${ms}-${Number(n) + 1}`;
}
