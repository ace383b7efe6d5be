import { randomBytes } from 'node:crypto';
import type { EventLog, InstanceTransition, LogReceiver, NewEvent, RemoteHistories } from '../../core/event-log.js';
import { messageOf, type Fence, type PluginContext } from '../../core/plugin-api.js';
import type { InstanceEvent, Registration } from '../../core/domain/index.js';
import type { ClusterRedisConfig } from './config.js';
import { Keys } from './keys.js';
import { Membership } from './membership.js';
import { RecordCodec } from './record-codec.js';
import { RecordSeal } from './record-seal.js';
import { RedisHistory } from './redis-history.js';
import { RETRY_MS, RedisLink } from './redis-link.js';
import { RedisOutbox } from './redis-outbox.js';
import { RedisSharedState } from './redis-shared-state.js';

/** The lease of the cluster's upkeep: trimming the feed and the outbox. */
const MAINTENANCE_LEASE = 'cluster-maintenance';
const MAINTENANCE_EVERY_MS = 60_000;
/** How long a start-up waits for Redis before it gives up. */
const OPEN_DEADLINE_MS = 8000;

/**
 * One node of a Vigil cluster: its Redis connections, its history (the EVENT_LOG), membership,
 * ownership and leases, shared state and the notification outbox, wired together. Opened by the
 * kernel as the event log (after every plugin set up, before the server listens), so the node
 * knows the history and who owns what before anything is served or checked.
 */
export class ClusterNode implements EventLog {
  readonly link: RedisLink;
  readonly keys: Keys;
  readonly history: RedisHistory;
  readonly membership: Membership;
  readonly sharedState: RedisSharedState;
  readonly outbox: RedisOutbox;
  readonly seal: RecordSeal;
  #maintenance: NodeJS.Timeout | undefined;
  #rebuilding: Promise<void> | undefined;

  constructor(private readonly ctx: PluginContext<ClusterRedisConfig>, readonly nodeId: string) {
    const { config, log } = ctx;
    this.link = new RedisLink(config, log);
    this.keys = new Keys(config['key-prefix']);
    this.seal = new RecordSeal(config['secret-key']);
    const codec = new RecordCodec(this.seal, log);
    this.history = new RedisHistory(this.link, this.keys, {
      maxEventsPerInstance: ctx.settings.eventStore.maxEventsPerInstance,
      maxDeregisteredInstances: ctx.settings.eventStore.maxDeregisteredInstances,
      log,
      codec,
      onForeignHistory: (reason) => void this.rebuild(reason),
      assigned: (id) => this.membership.assigned(id),
      view: () => this.membership.assignment,
      window: config['recent-events'],
    });
    this.membership = new Membership(this.link, this.keys, {
      nodeId,
      processToken: randomBytes(8).toString('hex'),
      heartbeatInterval: config['heartbeat-interval'],
      heartbeatTtl: config['heartbeat-ttl'],
      log,
      onOwnershipChanged: (lostContactSince) => {
        ctx.bus.emit('instances.ownership-changed', lostContactSince === undefined ? {} : { lostContactSince });
        // The histories move with the instances: the ones that fall to this node now are held here.
        void this.history.rebalance().catch((error: unknown) => log.warn(`holding the histories of the instances this node checks failed: ${messageOf(error)}`));
      },
      // Each node back from the outage beats at once; it notices within one reconnection pause,
      // and its reconnection (connect, then PING) takes at most two command timeouts.
      outageGraceMs: config['heartbeat-ttl'] + RETRY_MS + 2 * config['command-timeout'],
      onIncarnation: (incarnation) => {
        const loaded = this.history.incarnation;
        if (loaded !== '' && incarnation !== loaded) void this.rebuild(incarnation ? `Redis holds another history (${incarnation})` : 'Redis lost its data');
      },
    });
    this.sharedState = new RedisSharedState(this.link, this.keys);
    this.outbox = new RedisOutbox(this.link, this.keys, {
      nodeId,
      heartbeatInterval: config['heartbeat-interval'],
      heartbeatTtl: config['heartbeat-ttl'],
      log,
      applied: (seq) => this.#applied(seq),
      read: (fields, entry) => codec.readOutboxItem(fields, entry),
    });
    if (config['on-outage'] === 'exit') {
      this.link.onDown(() => ctx.requestExit(`Redis is unreachable (${this.link.where()}) and cluster-redis.on-outage is exit`));
    }
  }

  /** The histories this node does not hold are read from Redis. */
  get histories(): RemoteHistories {
    return this.history;
  }

  async open(receiver: LogReceiver): Promise<void> {
    if (this.seal.enabled) {
      this.ctx.log.info(`records in Redis are sealed with cluster-redis.secret-key (key id ${this.seal.keyId}; every node must show the same)`);
    } else {
      this.ctx.log.warn('cluster-redis.secret-key is not set: instance credentials (metadata passwords, passwords in URLs) are kept in Redis in clear, readable by anyone who can read Redis; set it (the same on every node) from an environment variable');
    }
    await this.link.open(OPEN_DEADLINE_MS);
    await this.membership.start();
    await this.history.open(receiver);
    this.membership.lease(MAINTENANCE_LEASE);
    this.ctx.log.info(`cluster node ${this.nodeId} joined ${this.membership.live.length} live node(s) on ${this.link.where()}`);
  }

  append(event: NewEvent, change: InstanceTransition, fence?: Fence): Promise<InstanceEvent> {
    return this.history.append(event, change, fence);
  }

  drop(id: string, fence: Fence): Promise<void> {
    return this.history.drop(id, fence);
  }

  /** Starts the cluster's upkeep on whichever node holds its lease. */
  startMaintenance(): void {
    this.#maintenance = setInterval(() => void this.#maintain(), MAINTENANCE_EVERY_MS);
    this.#maintenance.unref();
  }

  /** SIGTERM: hand over at once (out of the live set and the leases), then stop consuming. */
  async leave(): Promise<void> {
    clearInterval(this.#maintenance);
    await this.membership.leave();
    await this.outbox.stop();
  }

  async close(): Promise<void> {
    this.membership.stop();
    await this.history.close();
    await this.link.close();
  }

  /**
   * Redis came back without the history this node loaded (restarted without persistence, or a
   * failover to a replica that was behind): load what it holds now (a fresh history if nothing),
   * and register again the instances this node checked, so the registry is whole before their
   * clients' next heartbeat; their checks then report their status. The events before are lost.
   */
  rebuild(reason: string): Promise<void> {
    this.#rebuilding ??= (async () => {
      const owned = this.ctx.registry.list().filter((instance) => this.membership.assigned(instance.id)).map((instance) => instance.registration!);
      this.ctx.log.warn(`${reason}: reloading, and registering again the ${owned.length} instance(s) this node checked; the history before is lost`);
      await this.history.reload();
      await Promise.all(owned.map((registration: Registration) => this.ctx.registry.register(registration).catch((error: unknown) => {
        this.ctx.log.debug(`could not register ${registration.healthUrl} again: ${messageOf(error)}`);
      })));
    })().catch((error: unknown) => this.ctx.log.warn(`rebuilding after "${reason}" failed: ${messageOf(error)}`)).finally(() => {
      this.#rebuilding = undefined;
    });
    return this.#rebuilding;
  }

  async #maintain(): Promise<void> {
    if (!this.membership.lease(MAINTENANCE_LEASE).held) return;
    const horizon = Date.now() - this.ctx.config['feed-retention'];
    try {
      await this.link.run('feed trim', (client) => client.sendCommand(['XTRIM', this.keys.feed, 'MINID', '~', String(horizon)]));
      await this.outbox.trim();
    } catch (error) {
      this.ctx.log.debug(`upkeep skipped: ${messageOf(error)}`);
    }
  }

  /** Resolves once this node's snapshot holds `seq`, or after a few seconds (the handler goes on with what there is). */
  #applied(seq: number): Promise<void> {
    const { registry, bus } = this.ctx;
    if (registry.lastSeq >= seq) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        off();
        resolve();
      };
      const timer = setTimeout(done, 5000);
      const off = bus.on('instance.changed', () => {
        if (registry.lastSeq >= seq) done();
      });
    });
  }
}
