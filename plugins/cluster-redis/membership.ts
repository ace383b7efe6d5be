import { StoreUnavailableError, messageOf, type Lease, type Leases, type Logger, type Ownership } from '../../core/plugin-api.js';
import type { Keys } from './keys.js';
import type { RedisLink } from './redis-link.js';
import { ownerOf } from './rendezvous.js';
import { HEARTBEAT, LEASE, LEAVE } from './scripts.js';

export interface MembershipOptions {
  readonly nodeId: string;
  /** Random per process: tells two processes with one node id apart. */
  readonly processToken: string;
  readonly heartbeatInterval: number;
  readonly heartbeatTtl: number;
  readonly log: Logger;
  /**
   * The live set changed: ownership moved. When a node vanished without leaving on purpose,
   * `lostContactSince` is the earliest instant it may have stopped checking.
   */
  readonly onOwnershipChanged: (lostContactSince?: number) => void;
  /** The history's incarnation as Redis reports it at each beat ('' when Redis lost its data). */
  readonly onIncarnation: (incarnation: string) => void;
  /**
   * How long after Redis returns from an outage the nodes this node knew stay live even if Redis
   * no longer lists them: long enough for each of them to notice Redis is back and beat again.
   */
  readonly outageGraceMs: number;
}

/** Leases end this much before their TTL on this node's clock, so a holder stops before another can start. */
const LEASE_MARGIN = 0.2;

/**
 * Membership, ownership and leases of one node. Every `heartbeat-interval` the node refreshes its
 * entry in a sorted set scored by expiry on Redis's clock and reads the live set back; the owner
 * of an instance is the rendezvous winner among live nodes. While Redis is unreachable the last
 * live set stands, so a node keeps checking what it owned. Leases are renewed with the beat and
 * count as held only until their TTL (less a margin) has passed on this node's clock since the
 * last renewal: a node paused past its lease stops acting before it learns anything, and the
 * fencing token refuses whatever it still tries.
 */
export class Membership implements Ownership, Leases {
  #live: readonly string[];
  #duplicate = false;
  /** Redis went away, and no beat has got through since. */
  #outage = false;
  /** Left or stopped: no beat any more, not even one Redis's return would start. */
  #stopped = false;
  /** Until when (this node's clock) nodes missing from Redis's live set are kept: Redis was away, not they. */
  #graceUntil = 0;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #lastDuplicateWarning = 0;
  /** The current outage was logged once already. */
  #toldOutage = false;
  readonly #leases = new Map<string, { token: number | undefined; until: number }>();

  constructor(private readonly link: RedisLink, private readonly keys: Keys, private readonly options: MembershipOptions) {
    this.#live = [options.nodeId];
    link.onDown(() => {
      this.#outage = true;
    });
    link.onUp(() => {
      if (!this.#outage || this.#stopped) return;
      // Every node's entry may have expired while Redis was away (a hung Redis's clock runs on; a
      // restarted one reloads old expiries; an empty one has none): the first beat back would
      // declare the live nodes dead and move their instances, then take them back a beat later.
      this.#graceUntil = Date.now() + options.outageGraceMs;
      void this.beat();
    });
  }

  /** Nodes that announced they leave (SIGTERM): their instances were checked until they left. */
  readonly #leftOnPurpose = new Set<string>();
  /** The live nodes as last seen. */
  get live(): readonly string[] {
    return this.#live;
  }

  get nodeId(): string {
    return this.options.nodeId;
  }

  owns(id: string): boolean {
    return !this.#duplicate && ownerOf(id, this.#live) === this.options.nodeId;
  }

  lease(name: string): Lease {
    if (!this.#leases.has(name)) this.#leases.set(name, { token: undefined, until: 0 });
    const state = this.#leases.get(name)!;
    return {
      get held() {
        return state.token !== undefined && Date.now() < state.until;
      },
      get token() {
        return state.token !== undefined && Date.now() < state.until ? state.token : undefined;
      },
    };
  }

  /** One beat now (the first, before anything is served), then one every interval. */
  async start(): Promise<void> {
    await this.beat();
    this.#timer = setInterval(() => void this.beat(), this.options.heartbeatInterval);
    this.#timer.unref();
    // Another node left on purpose: look at once instead of at the next beat.
    await this.link.subscribe(this.keys.membershipChannel, (message) => {
      if (message === this.options.nodeId) return;
      this.#leftOnPurpose.add(message);
      void this.beat();
    });
  }

  /** One heartbeat, with lease renewals; beats never overlap. */
  beat(): Promise<void> {
    this.#beating ??= this.#beat().finally(() => {
      this.#beating = undefined;
    });
    return this.#beating;
  }

  /** Leaves on purpose: out of the live set and the leases at once, and the others are told. */
  async leave(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#beating;
    const leaseKeys = [...this.#leases.keys()].map((name) => this.keys.lease(name));
    try {
      await this.link.run('leave', (client) => LEAVE.run(client, [this.keys.nodes, this.keys.nodeOwners, ...leaseKeys], [this.options.nodeId, this.options.processToken]));
      await this.link.publish(this.keys.membershipChannel, this.options.nodeId);
    } catch (error) {
      this.options.log.warn(`could not leave the cluster cleanly (the others notice within heartbeat-ttl): ${messageOf(error)}`);
    }
    for (const state of this.#leases.values()) state.token = undefined;
  }

  async #beat(): Promise<void> {
    const { keys, link, options } = this;
    const started = Date.now();
    let live: readonly string[] | undefined;
    try {
      const [nodes, incarnation] = await link.run('heartbeat', (client) => HEARTBEAT.run<[string[], string]>(client, [keys.nodes, keys.nodeOwners, keys.meta], [options.nodeId, options.heartbeatTtl, options.processToken]));
      live = this.#withGrace([...nodes].sort());
      this.#outage = false;
      this.#setDuplicate(false);
      options.onIncarnation(incarnation);
    } catch (error) {
      if (/^DUPLICATE_NODE/.test(messageOf(error))) this.#setDuplicate(true);
      else if (!(error instanceof StoreUnavailableError)) options.log.warn(`Redis refused this node's heartbeat: ${messageOf(error)}`);
      else if (!this.#toldOutage) {
        this.#toldOutage = true;
        options.log.warn(`this node could not renew its place in the cluster: ${error.message}; it keeps the cluster as it last saw it (${this.#live.length} live node(s): ${this.#live.join(', ')}) and goes on checking the instances it owns until Redis answers again`);
      }
      return;
    }
    this.#toldOutage = false;
    if (live && !sameNodes(live, this.#live)) {
      const [joined, left] = [live.filter((node) => !this.#live.includes(node)), this.#live.filter((node) => !live!.includes(node))];
      this.#live = live;
      options.log.info(`cluster: ${live.length} live node(s)${joined.length ? `; joined: ${joined.join(', ')}` : ''}${left.length ? `; left: ${left.join(', ')}` : ''}`);
      const died = left.some((node) => !this.#leftOnPurpose.has(node));
      for (const node of [...left, ...joined]) this.#leftOnPurpose.delete(node);
      // A node that died last beat at least heartbeat-ttl before it dropped out of the set, which
      // this node sees at most one beat late (durations only: the nodes' clocks need not agree).
      options.onOwnershipChanged(died ? started - options.heartbeatTtl - options.heartbeatInterval : undefined);
    }
    if (this.#graceUntil !== 0 && Date.now() >= this.#graceUntil) {
      this.#graceUntil = 0;
      options.log.info(`cluster membership settled after the Redis outage: ${live.length} live node(s): ${live.join(', ')}`);
    }
    await this.#renewLeases(started);
  }

  /**
   * Redis's live set, and during the grace after an outage also the nodes this node knew that
   * Redis does not list (unless they left on purpose): they have had no chance to beat yet. Once
   * the grace is over, one that still has not beaten is dead, as any other silent node.
   */
  #withGrace(live: string[]): string[] {
    if (this.#graceUntil === 0 || Date.now() >= this.#graceUntil) return live;
    const kept = this.#live.filter((node) => !live.includes(node) && !this.#leftOnPurpose.has(node));
    return kept.length === 0 ? live : [...live, ...kept].sort();
  }

  async #renewLeases(started: number): Promise<void> {
    const { keys, link, options } = this;
    const holder = `${options.nodeId}|${options.processToken}`;
    await Promise.all([...this.#leases].map(async ([name, state]) => {
      try {
        const token = await link.run(`lease ${name}`, (client) => LEASE.run<number | null>(client, [keys.lease(name), keys.epoch(name)], [holder, options.heartbeatTtl]));
        if (token !== null && state.token !== Number(token)) options.log.info(`holding the lease "${name}" (token ${token})`);
        state.token = token === null ? undefined : Number(token);
        state.until = started + options.heartbeatTtl * (1 - LEASE_MARGIN);
      } catch (error) {
        if (!(error instanceof StoreUnavailableError)) options.log.warn(`lease "${name}": ${messageOf(error)}`);
      }
    }));
  }

  #setDuplicate(duplicate: boolean): void {
    if (duplicate) {
      const now = Date.now();
      if (now - this.#lastDuplicateWarning >= 60_000) {
        this.#lastDuplicateWarning = now;
        this.options.log.error(`another live process uses the node id "${this.options.nodeId}": this node checks nothing until it is gone (give each node its own cluster-redis.node-id)`);
      }
    }
    if (duplicate === this.#duplicate) return;
    this.#duplicate = duplicate;
    this.options.onOwnershipChanged();
  }

  stop(): void {
    this.#stopped = true;
    clearInterval(this.#timer);
  }
}

function sameNodes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((node, index) => node === b[index]);
}
