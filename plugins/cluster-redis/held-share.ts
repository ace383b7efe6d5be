import { messageOf, type Logger } from '../../core/plugin-api.js';
import type { LogReceiver } from '../../core/event-log.js';

/** A receiver told when what it holds changes (the registry). */
export type SharingReceiver = Required<Pick<LogReceiver, 'instanceIds' | 'released' | 'acquired'>>;
import type { InstanceEvent } from '../../core/domain/index.js';

/** How many histories one read from Redis takes when ownership moved. */
const READ_BATCH = 1000;
/** How long after a failed read the histories still missing are read again. */
const RETRY_MS = 1000;

export interface ShareOptions {
  /** Whether `id` falls to this node among the live nodes as it last saw them (whether or not its place is current). */
  readonly assigned: (id: string) => boolean;
  /** What `assigned` decides from (the live nodes as last seen): when it changes, ownership may have moved. */
  readonly view: () => string;
  /** The whole histories of these instances as Redis holds them, oldest first, one list per id. */
  readonly read: (ids: readonly string[]) => Promise<InstanceEvent[][]>;
  /** Called a while after a read failed: look again (`HeldShare.rebalance`). */
  readonly retry: () => void;
  readonly log: Logger;
}

/** An instance whose history is being read: by which round, and the events delivered meanwhile. */
interface Reading {
  readonly round: number;
  readonly during: InstanceEvent[];
}

/**
 * Which instances' whole histories this node holds: those assigned to it (the ones it checks),
 * and only those. What falls to a node moves as nodes join and leave, and a node sees a change a
 * heartbeat late at most, so two nodes may both take an instance that registers meanwhile.
 * Every change of the live set rebalances: a history no longer assigned is let go at once (the
 * registry keeps its compact snapshot and the recent window), one newly assigned is read from
 * Redis, in batches, while events go on; those delivered during the read are added to what it
 * read, so nothing is missed or held twice. Assignment, not current membership, decides: a node
 * whose place lapsed (Redis away) keeps what it holds, and serves reads from it.
 */
export class HeldShare {
  readonly #held = new Set<string>();
  readonly #reading = new Map<string, Reading>();
  /** The view the held set was last decided from (undefined: decide again at the next look). */
  #view: string | undefined;
  #rounds = 0;
  /** The newest seq handed to the receiver (by a load or the feed). */
  #delivered = 0;
  #retry: NodeJS.Timeout | undefined;

  constructor(private readonly options: ShareOptions) {}

  holds(id: string): boolean {
    return this.#held.has(id);
  }

  /** How many instances' whole histories this node holds. */
  get size(): number {
    return this.#held.size;
  }

  /** Of a load's instances, those whose histories it reads and hands over: those assigned now, and the view that said so. */
  select(ids: readonly string[]): { readonly held: readonly string[]; readonly view: string } {
    return { view: this.options.view(), held: ids.filter((id) => this.options.assigned(id)) };
  }

  /** A load replaced everything, holding what `select` chose, up to `lastSeq`: reads under way are dropped. */
  loaded(selection: { readonly held: readonly string[]; readonly view: string }, lastSeq: number): void {
    this.#held.clear();
    for (const id of selection.held) this.#held.add(id);
    this.#reading.clear();
    this.#view = selection.view;
    this.#delivered = lastSeq;
  }

  /** An event about to be handed to the receiver. Called before it is. */
  delivering(event: InstanceEvent): void {
    if (event.seq > this.#delivered) this.#delivered = event.seq;
    const id = event.instance;
    if (event.version === 0) {
      // A history that starts here: held whole by the node it falls to, with nothing to read.
      this.#reading.delete(id);
      if (this.options.assigned(id)) this.#held.add(id);
      return;
    }
    if (this.#reading.size > 0) this.#reading.get(id)?.during.push(event);
  }

  /** An instance's history was dropped everywhere. */
  dropped(id: string): void {
    this.#held.delete(id);
    this.#reading.delete(id);
  }

  /**
   * Holds the histories of the instances assigned now, and only those: let go of the others at
   * once, read the missing ones. Nothing to do while the view is the one last decided from.
   */
  async rebalance(receiver: SharingReceiver): Promise<void> {
    const view = this.options.view();
    if (view === this.#view) return;
    this.#view = view;
    clearTimeout(this.#retry);
    const { assigned, log } = this.options;
    let released = 0;
    for (const id of this.#held) {
      if (assigned(id)) continue;
      this.#held.delete(id);
      receiver.released(id);
      released += 1;
    }
    for (const [id] of this.#reading) if (!assigned(id)) this.#reading.delete(id);
    const wanted: string[] = [];
    for (const id of receiver.instanceIds()) if (!this.#held.has(id) && !this.#reading.has(id) && assigned(id)) wanted.push(id);
    if (released === 0 && wanted.length === 0) return;
    log.info(`ownership moved: this node lets go of ${released} instance history(ies) and reads the ${wanted.length} of the instances it now checks from Redis`);
    const round = (this.#rounds += 1);
    for (const id of wanted) this.#reading.set(id, { round, during: [] });
    for (let i = 0; i < wanted.length; i += READ_BATCH) {
      // Those still wanted: another look may have let some go, or a load replaced everything.
      const batch = wanted.slice(i, i + READ_BATCH).filter((id) => this.#reading.get(id)?.round === round);
      if (batch.length === 0) continue;
      let histories: InstanceEvent[][];
      try {
        histories = await this.options.read(batch);
      } catch (error) {
        for (const id of wanted.slice(i)) if (this.#reading.get(id)?.round === round) this.#reading.delete(id);
        this.#view = undefined;
        this.#retry = setTimeout(this.options.retry, RETRY_MS);
        log.warn(`could not read the histories of the instances this node now checks (read from Redis when asked until they are; trying again): ${messageOf(error)}`);
        return;
      }
      receiver.acquired(this.#completed(batch, histories, round));
    }
  }

  /** What was read of `batch`, with the events delivered meanwhile, for those still wanted; from now on held. */
  #completed(batch: readonly string[], histories: readonly InstanceEvent[][], round: number): Map<string, InstanceEvent[]> {
    const result = new Map<string, InstanceEvent[]>();
    batch.forEach((id, index) => {
      const reading = this.#reading.get(id);
      if (reading?.round !== round) return;
      this.#reading.delete(id);
      const history = histories[index]!;
      // Redis may be ahead of the feed: what this node has not applied yet comes through the feed.
      const events = history.filter((event) => event.seq <= this.#delivered);
      // Delivered after the read began: those the read did not see yet.
      const newest = history.at(-1)?.seq ?? Number.NEGATIVE_INFINITY;
      for (const event of reading.during) if (event.seq > newest) events.push(event);
      this.#held.add(id);
      result.set(id, events);
    });
    return result;
  }

  stop(): void {
    clearTimeout(this.#retry);
  }
}
