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

/**
 * A node's place in the cluster and its leases end this much before their TTL on its own clock,
 * so it stops before another node can start (clocks may run at slightly different rates, a timer
 * may fire late, and the others notice only at their next beat anyway).
 */
export const LEASE_MARGIN = 0.2;

/**
 * Membership, ownership and leases of one node. Every `heartbeat-interval` the node refreshes its
 * entry in a sorted set scored by expiry on Redis's clock and reads the live set back; the owner
 * of an instance is the rendezvous winner among live nodes.
 *
 * A node's own place is a lease too: it counts only until `heartbeat-ttl` (less a margin) has
 * passed on this node's clock since the start of its last renewal that got through. The others
 * drop it from the live set only once its entry expired on Redis's clock, which is later, so a node
 * cut off from Redis (or paused) owns nothing, whatever it last knew of the others, before they
 * take its instances over; it owns its share again at its first renewal that gets through. Leases
 * are renewed with the beat and count the same way: a node paused past its lease stops acting
 * before it learns anything, and the fencing token refuses whatever it still tries.
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
  /** Until when (this node's clock) its place counts: the start of its last renewal plus the TTL less the margin. */
  #memberUntil = 0;
  /** When its place lapsed (0 while it holds one, and before the first). */
  #lapsedAt = 0;
  #lapseTimer: NodeJS.Timeout | undefined;
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

  /** Whether this node holds its place in the cluster now (renewed within the TTL, less the margin, on its own clock). */
  get member(): boolean {
    return Date.now() < this.#memberUntil;
  }

  owns(id: string): boolean {
    return this.member && this.assigned(id);
  }

  /** What `assigned` decides from: the live nodes as last seen (nothing while another process has this node id). */
  get assignment(): string {
    return this.#duplicate ? '' : this.#live.join(' ');
  }

  /**
   * Whether `id` falls to this node among the live nodes as it last saw them, whether or not its
   * own place is current: what it checked before it stepped back (a rebuild registers those again).
   */
  assigned(id: string): boolean {
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
    // It stops checking first; the others take over once it is out of the set.
    this.#memberUntil = 0;
    clearInterval(this.#timer);
    clearTimeout(this.#lapseTimer);
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
        options.log.warn(`this node could not renew its place in the cluster: ${error.message}; unless a renewal gets through within heartbeat-ttl of the last one, it steps back (checks nothing) and the other nodes take its instances over`);
      }
      return;
    }
    this.#toldOutage = false;
    const lapsedAt = this.#renewed(started);
    let lostContactSince = lapsedAt;
    if (live && !sameNodes(live, this.#live)) {
      const [joined, left] = [live.filter((node) => !this.#live.includes(node)), this.#live.filter((node) => !live!.includes(node))];
      this.#live = live;
      options.log.info(`cluster: ${live.length} live node(s)${joined.length ? `; joined: ${joined.join(', ')}` : ''}${left.length ? `; left: ${left.join(', ')}` : ''}`);
      const died = left.some((node) => !this.#leftOnPurpose.has(node));
      for (const node of [...left, ...joined]) this.#leftOnPurpose.delete(node);
      // A node that died last beat at least heartbeat-ttl before it dropped out of the set, which
      // this node sees at most one beat late (durations only: the nodes' clocks need not agree).
      if (died) lostContactSince = Math.min(lostContactSince ?? Infinity, started - options.heartbeatTtl - options.heartbeatInterval);
      options.onOwnershipChanged(lostContactSince);
    } else if (lapsedAt !== undefined) {
      options.onOwnershipChanged(lapsedAt);
    }
    if (this.#graceUntil !== 0 && Date.now() >= this.#graceUntil) {
      this.#graceUntil = 0;
      options.log.info(`cluster membership settled after the Redis outage: ${live.length} live node(s): ${live.join(', ')}`);
    }
    await this.#renewLeases(started);
  }

  /**
   * A renewal that began at `started` got through: this node's place counts until the TTL (less
   * the margin) has passed since then. Returns when its place had lapsed, if it had: it owns its
   * share again, and nothing may have checked the instances since then (every node lapsed when
   * Redis was away for all of them).
   */
  #renewed(started: number): number | undefined {
    const { options } = this;
    this.#memberUntil = started + options.heartbeatTtl * (1 - LEASE_MARGIN);
    clearTimeout(this.#lapseTimer);
    this.#lapseTimer = setTimeout(() => this.#lapse(), Math.max(0, this.#memberUntil - Date.now()));
    this.#lapseTimer.unref();
    const lapsedAt = this.#lapsedAt;
    if (lapsedAt === 0 || !this.member) return undefined;
    this.#lapsedAt = 0;
    options.log.info(`this node renewed its place in the cluster again after ${((Date.now() - lapsedAt) / 1000).toFixed(1)} s: it checks the instances it owns again`);
    return lapsedAt;
  }

  /**
   * No renewal got through in time: this node owns nothing until one does (owns() already says so
   * by the clock; this tells the monitor at once, and says so once).
   */
  #lapse(): void {
    if (this.#stopped || this.#lapsedAt !== 0) return;
    const left = this.#memberUntil - Date.now();
    if (left > 0) {
      // Timers run on a monotonic clock, Date.now() on the wall clock: they may disagree by a little.
      this.#lapseTimer = setTimeout(() => this.#lapse(), left);
      this.#lapseTimer.unref();
      return;
    }
    this.#lapsedAt = this.#memberUntil;
    const { options } = this;
    const since = this.#memberUntil - options.heartbeatTtl * (1 - LEASE_MARGIN);
    options.log.warn(`this node has not renewed its place in the cluster for ${Date.now() - since} ms (heartbeat-ttl is ${options.heartbeatTtl} ms): it checks nothing until a renewal gets through, and the other nodes take its instances over`);
    options.onOwnershipChanged();
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
    clearTimeout(this.#lapseTimer);
  }
}

function sameNodes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((node, index) => node === b[index]);
}
