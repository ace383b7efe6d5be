import { randomUUID } from 'node:crypto';
import { StaleFenceError, StoreUnavailableError, VersionConflictError, messageOf, type Fence, type Logger } from '../../core/plugin-api.js';
import { compactionKind, runSeqBase, storedEvent, type EventLog, type InstanceTransition, type LogReceiver, type NewEvent, type RemoteHistories } from '../../core/event-log.js';
import type { Instance, InstanceEvent } from '../../core/domain/index.js';
import type { Keys } from './keys.js';
import type { RecordCodec } from './record-codec.js';
import { APPEND, DROP, INDEX_HISTORIES, INIT, READ_EVENTS } from './scripts.js';
import { HeldShare, type SharingReceiver } from './held-share.js';
import { pause, type Client, type RedisLink } from './redis-link.js';

/** How long one feed read waits for news before it asks again (and notices it should stop). */
const BLOCK_MS = 1000;
/** The least wait before a failed feed read is tried again. */
const RETRY_PAUSE_MS = 100;
/** How many entries one feed read takes, and how many instances one load step reads at once. */
const BATCH = 1000;
/** The feed's hard cap (entries); the maintenance job trims it by age long before this. */
export const FEED_MAX_LENGTH = 500_000;
/** Own appends remembered until the feed brings them back; past this the oldest are forgotten (they are folded instead). */
const MAX_OWN_APPENDS = 10_000;

type Fields = Record<string, string>;
type StreamEntry = [id: string, fields: string[]];

export interface HistoryOptions {
  readonly maxEventsPerInstance: number;
  /** `event-store.max-deregistered-instances`, applied in the append script. */
  readonly maxDeregisteredInstances: number;
  readonly log: Logger;
  /** Seals what is written, and opens and checks what is read (a refused record is left out). */
  readonly codec: RecordCodec;
  /** Called when Redis holds another history than the one loaded (it lost its data): the node rebuilds. */
  readonly onForeignHistory: (reason: string) => void;
  /** Whether an instance falls to this node among the live nodes as it last saw them: it holds the histories of those. */
  readonly assigned: (id: string) => boolean;
  /** What `assigned` decides from (the live nodes as last seen). */
  readonly view: () => string;
  /** How many of the newest events of every instance the registry holds besides those histories. */
  readonly window: number;
}

/**
 * The registry's event log in Redis (EVENT_LOG). Appends run one script (version check, seq,
 * history, feed, snapshot, outbox, compaction); every node, the writer included, applies events
 * from the feed in seq order, so all nodes hold the same events and the writer's read-your-writes
 * comes from the registry waiting for its own seq. A node away long enough for the feed to be
 * trimmed past it reloads everything.
 */
export class RedisHistory implements EventLog, RemoteHistories {
  #receiver: LogReceiver | undefined;
  /** The instances whose whole history the registry holds: those that fall to this node, as ownership moves. */
  readonly #share: HeldShare;
  #incarnation = '';
  #feedId = '0-0';
  /** The newest seq this node knows the cluster has issued (from its loads and the feed). */
  #newestSeen = 0;
  #closed = false;
  /** Aborted at close: a loop waiting out an outage stops waiting. */
  readonly #stopping = new AbortController();
  #tail: Promise<void> | undefined;
  #reloading: Promise<void> | undefined;
  /** Counts loads begun; a feed read that overlapped one is discarded (see `#follow`). */
  #loads = 0;
  #loading: Promise<void> | undefined;
  /**
   * This node's appends on their way back through the feed, by their record (the feed entry
   * carries the very string written): delivered with the transition they came with, the
   * registry holds that instead of folding its own event again.
   */
  readonly #ownAppends = new Map<string, InstanceTransition>();

  constructor(private readonly link: RedisLink, private readonly keys: Keys, private readonly options: HistoryOptions) {
    this.#share = new HeldShare({
      assigned: options.assigned,
      view: options.view,
      read: (ids) => this.#readHistories(ids),
      retry: () => void this.rebalance(),
      log: options.log,
    });
  }

  get window(): number {
    return this.options.window;
  }

  holds(id: string): boolean {
    return this.#share.holds(id);
  }

  /** How many instances' whole histories this node holds (`vigil_cluster_held_histories`). */
  get heldHistories(): number {
    return this.#share.size;
  }

  /**
   * The live nodes this node sees changed: it holds the histories of the instances that fall to
   * it now, and lets the others go (after a load under way, which decides from the view it finds).
   */
  async rebalance(): Promise<void> {
    if (this.#loading) await this.#loading.catch(() => undefined);
    const receiver = this.#receiver;
    if (!receiver?.instanceIds || !receiver.released || !receiver.acquired || this.#closed) return;
    await this.#share.rebalance(receiver as SharingReceiver);
  }

  async *read(after: number, upTo: number): AsyncIterable<readonly InstanceEvent[]> {
    const { keys, link } = this;
    let from = after;
    while (from < upTo) {
      const reply = await link.run('read events', (client) => READ_EVENTS.run<string[]>(client, [keys.eventIndex], [from, upTo, BATCH, keys.events('')]));
      if (!reply[0]) return;
      from = Number(reply[0]);
      const events: InstanceEvent[] = [];
      for (let i = 1; i + 2 < reply.length; i += 3) {
        const id = reply[i]!;
        const event = this.options.codec.readEvent(reply[i + 1], id, Number(reply[i + 2]), `the history of ${id}`);
        if (event) events.push(event);
      }
      if (events.length > 0) yield events;
    }
  }

  async readInstance(id: string, upTo: number): Promise<readonly InstanceEvent[]> {
    const history = await this.link.run('XRANGE history', (client) => client.sendCommand<StreamEntry[]>(['XRANGE', this.keys.events(id), '-', '+']));
    return this.#eventsOf(id, history).filter((event) => event.seq <= upTo);
  }

  /** How many events the cluster has recorded beyond `applied` (this node's newest), as of the last look. */
  lag(applied: number): number {
    return Math.max(0, this.#newestSeen - applied);
  }

  /** The incarnation of the history loaded (empty before open). */
  get incarnation(): string {
    return this.#incarnation;
  }

  async open(receiver: LogReceiver): Promise<void> {
    this.#receiver = receiver;
    await this.#load();
    this.#tail = this.#follow();
  }

  async append(event: NewEvent, change: InstanceTransition, fence?: Fence): Promise<InstanceEvent> {
    const { keys } = this;
    const dereg = event.type === 'DEREGISTERED' ? '+' : event.type === 'REGISTERED' ? '-' : '';
    const kind = compactionKind({ ...event, seq: 0 } as InstanceEvent);
    const record = this.options.codec.writeEvent(event);
    const snapshot = this.options.codec.writeSnapshot(change.after);
    this.#rememberOwn(record, change);
    try {
      const seq = await this.link.run('append', (client) => APPEND.run<number>(client, [
        keys.events(event.instance), keys.versions, keys.snapshots, keys.feed, keys.seq, keys.meta, keys.deregistered,
        keys.outbox, keys.outboxOn, fence ? keys.epoch(fence.lease) : keys.meta, keys.eventIndex,
      ], [
        event.instance, event.version, kind, record, snapshot, this.options.maxEventsPerInstance,
        FEED_MAX_LENGTH, event.type, change.before.statusInfo.status, change.after.statusInfo.status, event.timestamp,
        this.#incarnation, fence ? String(fence.token) : '', dereg, this.options.maxDeregisteredInstances, keys.events(''),
      ]));
      return storedEvent(event, Number(seq));
    } catch (error) {
      // Refused, or unknown whether applied: if the feed brings it after all, it is folded.
      this.#ownAppends.delete(record);
      throw this.#scriptError(error, event.instance, fence);
    }
  }

  async drop(id: string, fence: Fence): Promise<void> {
    const { keys } = this;
    try {
      await this.link.run('drop', (client) => DROP.run(client, [
        keys.events(id), keys.versions, keys.snapshots, keys.feed, keys.deregistered, keys.epoch(fence.lease), keys.meta, keys.eventIndex,
      ], [id, fence.token, FEED_MAX_LENGTH, this.#incarnation]));
    } catch (error) {
      throw this.#scriptError(error, id, fence);
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    this.#share.stop();
    this.#stopping.abort();
    await this.#tail;
    this.#receiver = undefined;
  }

  /**
   * Reloads everything from Redis (a node that fell behind the feed, or a history Redis lost and
   * a new one). Concurrent callers share one reload.
   */
  reload(): Promise<void> {
    this.#reloading ??= this.#load().finally(() => {
      this.#reloading = undefined;
    });
    return this.#reloading;
  }

  /**
   * Snapshot, then tail, with no gap: the feed's tip is noted first, then the seq, then the
   * snapshots and histories; the feed is then read from the tip. An event appended meanwhile is
   * both loaded and read again, and the registry ignores it the second time (same seq, or a
   * version it already holds).
   */
  #load(): Promise<void> {
    this.#loads += 1;
    const loading = this.#loadOnce().finally(() => {
      if (this.#loading === loading) this.#loading = undefined;
    });
    this.#loading = loading;
    return loading;
  }

  async #loadOnce(): Promise<void> {
    const { keys, link } = this;
    const tip = await link.run('XREVRANGE feed', (client) => client.sendCommand<StreamEntry[]>(['XREVRANGE', keys.feed, '+', '-', 'COUNT', '1']));
    const [incarnation, base, seq] = await link.run('init', (client) => INIT.run<[string, string, string]>(client, [keys.meta, keys.seq], [randomUUID(), runSeqBase()]));
    const snapshots: Instance[] = [];
    let refused = 0;
    let cursor = '0';
    do {
      const [next, flat] = await link.run('HSCAN snapshots', (client) => client.sendCommand<[string, string[]]>(['HSCAN', keys.snapshots, cursor, 'COUNT', String(BATCH)]));
      cursor = next;
      for (let i = 0; i + 1 < flat.length; i += 2) {
        const snapshot = this.options.codec.readSnapshot(flat[i + 1], flat[i]!);
        if (snapshot) snapshots.push(snapshot);
        else refused += 1;
      }
    } while (cursor !== '0');
    await this.#indexOlderData(snapshots);
    // The whole histories of the instances that fall to this node; the rest it reads when asked.
    const selection = this.#share.select(snapshots.map((instance) => instance.id));
    const { held } = selection;
    const events: InstanceEvent[] = [];
    for (let i = 0; i < held.length; i += BATCH) {
      const ids = held.slice(i, i + BATCH);
      const histories = await this.#readStreams(ids);
      histories.forEach((history, index) => {
        const read = this.#eventsOf(ids[index]!, history);
        refused += history.length - read.length;
        events.push(...read);
      });
    }
    events.sort((a, b) => a.seq - b.seq);
    this.#share.loaded(selection, Number(seq));
    // What the load holds is not read from the feed again; an append still under way is folded.
    this.#ownAppends.clear();
    this.#incarnation = incarnation;
    this.#feedId = tip[0]?.[0] ?? '0-0';
    this.#newestSeen = Math.max(this.#newestSeen, Number(seq));
    this.#receiver?.load(snapshots, events, { first: Number(base), last: Number(seq) });
    this.options.log.info(`loaded ${snapshots.length} instance(s) and ${events.length} event(s) of the ${held.length} this node checks from Redis (history ${incarnation})${refused > 0 ? `; ${refused} record(s) refused and left out (see the warnings above)` : ''}`);
    this.options.log.debug(`load: feed tip ${this.#feedId}, seq ${seq}, snapshots ${snapshots.map((s) => s.id).join(',')}`);
  }

  /** Reads the feed until closed; after an outage it checks it is still the same history, unbroken. */
  async #follow(): Promise<void> {
    const { keys, link } = this;
    while (!this.#closed) {
      try {
        if (this.#loading) await this.#loading.catch(() => undefined);
        const loads = this.#loads;
        const reply = await link.runBlocking('XREAD feed', 'feed', (client) => client.sendCommand<[string, StreamEntry[]][] | null>(
          ['XREAD', 'COUNT', String(BATCH), 'BLOCK', String(BLOCK_MS), 'STREAMS', keys.feed, this.#feedId]), BLOCK_MS);
        // A load began while this read was under way: it set the feed position back to its own tip,
        // and this reply (read from the old position) would move it forward past events the load
        // did not hold. Dropped: the next read starts from the load's tip and gets them again.
        if (loads !== this.#loads || this.#loading) continue;
        for (const [id, fields] of reply?.[0]?.[1] ?? []) {
          this.#feedId = id;
          this.#deliver(fieldsOf(fields));
        }
      } catch (error) {
        if (this.#closed) return;
        if (!(error instanceof StoreUnavailableError)) this.options.log.error(`reading the change feed failed: ${messageOf(error)}`);
        // Never at once again: an error Redis keeps giving would otherwise spin this loop.
        await pause(RETRY_PAUSE_MS, this.#stopping.signal);
        await Promise.race([link.whenUp(), pause(BLOCK_MS, this.#stopping.signal)]);
        if (link.up) await this.#afterOutage().catch((problem: unknown) => this.options.log.warn(`catching up after the outage failed: ${messageOf(problem)}`));
      }
    }
  }

  /** Same history and the feed still reaches back to where this node was: carry on; otherwise reload. */
  async #afterOutage(): Promise<void> {
    const { keys, link } = this;
    const incarnation = await link.run('HGET incarnation', (client) => client.hGet(keys.meta, 'incarnation'));
    if (incarnation !== this.#incarnation) {
      this.options.onForeignHistory(incarnation ? `Redis holds another history (${incarnation})` : 'Redis lost its data');
      return;
    }
    const oldest = await link.run('XRANGE feed', (client) => client.sendCommand<StreamEntry[]>(['XRANGE', keys.feed, '-', '+', 'COUNT', '1']));
    const first = oldest[0]?.[0];
    if (first !== undefined && this.#feedId !== '0-0' && compareIds(first, this.#feedId) > 0) {
      this.options.log.warn('this node was away longer than the change feed reaches back: reloading everything');
      await this.reload();
    }
  }

  #deliver(fields: Fields): void {
    const receiver = this.#receiver;
    if (!receiver) return;
    if (fields.d !== undefined) {
      receiver.dropped(fields.d);
      this.#share.dropped(fields.d);
      return;
    }
    const change = fields.e === undefined ? undefined : this.#ownAppends.get(fields.e);
    if (change) this.#ownAppends.delete(fields.e!);
    const event = this.options.codec.readEvent(fields.e, fields.i, Number(fields.q), 'the change feed');
    if (!event) return;
    this.#newestSeen = Math.max(this.#newestSeen, event.seq);
    this.#share.delivering(event);
    receiver.event(event, change);
  }

  #rememberOwn(record: string, change: InstanceTransition): void {
    if (this.#ownAppends.size >= MAX_OWN_APPENDS) this.#ownAppends.delete(this.#ownAppends.keys().next().value!);
    this.#ownAppends.set(record, change);
  }

  /** Whole history streams, read in one pipeline. */
  #readStreams(ids: readonly string[]): Promise<StreamEntry[][]> {
    const { keys, link } = this;
    return link.run('XRANGE histories', (client) => Promise.all(ids.map((id) => client.sendCommand<StreamEntry[]>(['XRANGE', keys.events(id), '-', '+']))), BATCH * 5);
  }

  async #readHistories(ids: readonly string[]): Promise<InstanceEvent[][]> {
    const histories = await this.#readStreams(ids);
    return histories.map((history, index) => this.#eventsOf(ids[index]!, history));
  }

  /** The events of one history as read from its stream; a record refused is left out (and logged). */
  #eventsOf(id: string, history: readonly StreamEntry[]): InstanceEvent[] {
    const events: InstanceEvent[] = [];
    for (const [, flatFields] of history) {
      const fields = fieldsOf(flatFields);
      const event = this.options.codec.readEvent(fields.e, id, Number(fields.q), `the history of ${id}`);
      if (event) events.push(event);
    }
    return events;
  }

  /**
   * Histories written before the event index existed (an older Vigil) are indexed once, by the
   * first node of this version that loads them; appends index their own events from then on.
   */
  async #indexOlderData(snapshots: readonly Instance[]): Promise<void> {
    const { keys, link } = this;
    if (await link.run('HGET indexed', (client) => client.hGet(keys.meta, 'indexed'))) return;
    for (let i = 0; i < snapshots.length; i += BATCH) {
      const ids = snapshots.slice(i, i + BATCH).map((instance) => instance.id);
      await link.run('index histories', (client) => INDEX_HISTORIES.run(client, [keys.eventIndex], [keys.events(''), ...ids]), BATCH * 5);
    }
    await link.run('HSET indexed', (client) => client.hSet(keys.meta, 'indexed', '1'));
    if (snapshots.length > 0) this.options.log.info(`indexed the histories of ${snapshots.length} instance(s) written by an older version`);
  }

  /** A script's refusal as the contract's error. */
  #scriptError(error: unknown, id: string, fence: Fence | undefined): unknown {
    const message = messageOf(error);
    const conflict = /^VERSION_CONFLICT (-?\d+)/.exec(message);
    if (conflict) return new VersionConflictError(id, Number(conflict[1]));
    const stale = /^STALE_FENCE (\S+)/.exec(message);
    if (stale && fence) return new StaleFenceError(fence, stale[1] === 'none' ? undefined : Number(stale[1]));
    if (message.startsWith('INCARNATION')) {
      this.options.onForeignHistory(message.includes('none') ? 'Redis lost its data' : 'Redis holds another history');
      return new StoreUnavailableError('Redis lost the history this node loaded; rebuilding it, try again shortly', 2, { cause: error });
    }
    return error;
  }
}

function fieldsOf(flat: readonly string[]): Fields {
  const fields: Fields = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]!] = flat[i + 1]!;
  return fields;
}

/** Stream ids `ms-n` compared as numbers. */
export function compareIds(a: string, b: string): number {
  const [am, an] = a.split('-').map(Number) as [number, number];
  const [bm, bn] = b.split('-').map(Number) as [number, number];
  return am - bm || an - bn;
}

export type { Client };
