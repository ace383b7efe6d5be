import { LEASES, messageOf, type Logger, type OutboxItem, type PluginContext } from '../../core/plugin-api.js';
import type { GroupNotification, InstanceNotification, NotifiedEventType, SummaryNotification } from '../../core/kits/notify-channel/index.js';
import { Batcher, type Entry } from './batcher.js';
import { Completion } from './completion.js';
import type { NotifyConfig } from './config-schema.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { instanceNotification, notifiedInstance } from './facts.js';
import type { FilterStore } from './filters.js';
import { heldChange } from './hold.js';
import { InstanceRateLimit } from './instance-rate.js';
import type { ReminderStore } from './reminders.js';
import type { ChannelRules } from './rules.js';
import type { ChannelStats, PipelineStats } from './stats.js';
import { sameNotifiedStatus } from './status-class.js';
import { SUMMARY_LIST, StormTracker } from './storm-tracker.js';

/** A loaded channel as the pipeline drives it. */
export interface ChannelRuntime {
  readonly name: string;
  /** Replaced when a reload changes the channel's section or `notify`'s `on` / `ignore-changes`. */
  rules: ChannelRules;
  readonly queue: DeliveryQueue;
  readonly stats: ChannelStats;
  reminders: boolean;
}

export interface PipelineOptions {
  readonly ctx: PluginContext<NotifyConfig>;
  readonly channels: readonly ChannelRuntime[];
  readonly filters: FilterStore;
  readonly reminders: ReminderStore;
  readonly stats: PipelineStats;
  readonly baseUrl: () => string;
}

const NOTIFIED: ReadonlySet<string> = new Set<NotifiedEventType>(['REGISTERED', 'DEREGISTERED', 'STATUS_CHANGED']);

/**
 * From an outbox item to the channels' queues: triggers → hold → filters → the instance's rate →
 * storm control and grouping → each channel's rules → its delivery queue. `handle` resolves when
 * the item is done (every channel delivered or gave up, or nothing was to be sent), which is when
 * a durable outbox may forget it; on stop it never resolves, so such an outbox hands the item to
 * another node.
 */
export class Pipeline {
  readonly #batcher: Batcher;
  readonly #rate: InstanceRateLimit;
  readonly #storm: StormTracker;
  readonly #timers = new Set<NodeJS.Timeout>();
  readonly #config: NotifyConfig;
  readonly #log: Logger;
  readonly #reminderStatuses: ReadonlySet<string>;
  /** Instances with an item between its arrival and the batcher (held, or reading filters): how many each. */
  readonly #arriving = new Map<string, number>();
  #stopped = false;

  constructor(private readonly options: PipelineOptions) {
    const config = options.ctx.config;
    this.#config = config;
    this.#log = options.ctx.log;
    this.#reminderStatuses = new Set(config.reminder.statuses.map((status) => status.toUpperCase()));
    this.#batcher = new Batcher({
      groupWindowMs: config['group-window'],
      selfPreservation: config['self-preservation'],
      stormWindowMs: config['self-preservation-window'],
      stormMin: config['self-preservation-min'],
      total: () => options.ctx.registry.list().length,
      dispatch: (entries, grouped) => this.#dispatch(entries, grouped),
      summarize: (direction, entries, total) => this.#summarize(direction, entries, total),
    });
    this.#rate = new InstanceRateLimit({
      rate: config['per-instance-rate'],
      wanted: (n) => options.channels.some((channel) => channel.rules.accepts(n.type, n.from, n.to)),
      next: (entry) => this.#batcher.add(entry),
      counted: () => {
        options.stats.rateLimited += 1;
      },
    });
    this.#storm = new StormTracker({
      windowMs: config['self-preservation-window'],
      selfPreservation: config['self-preservation'],
      stormMin: config['self-preservation-min'],
      statusOf: (id) => {
        const instance = options.ctx.registry.get(id);
        return instance?.registered ? instance.statusInfo.status : undefined;
      },
      pending: (id) => this.#arriving.has(id) || this.#rate.holds(id) || this.#batcher.holds(id),
      total: () => options.ctx.registry.list().length,
      followUp: (changes) => void this.#followUp(changes),
      recovered: (storm) => this.#stormOver(storm),
      log: this.#log,
    });
  }

  readonly handle = async (item: OutboxItem): Promise<void> => {
    if (this.#stopped || !NOTIFIED.has(item.type)) return;
    const id = item.instance;
    this.#arriving.set(id, (this.#arriving.get(id) ?? 0) + 1);
    let arrived = false;
    const arrive = () => {
      if (arrived) return;
      arrived = true;
      const left = this.#arriving.get(id)! - 1;
      if (left > 0) this.#arriving.set(id, left);
      else this.#arriving.delete(id);
    };
    try {
      return await this.#handle(item, arrive);
    } finally {
      arrive();
    }
  };

  /** `handle` for an item of a notified type; `arrive` is called once the change is in the batcher (or dropped). */
  async #handle(item: OutboxItem, arrive: () => void): Promise<void> {
    const type = item.type as NotifiedEventType;
    const { ctx, filters, reminders, stats, channels } = this.options;
    const remind = this.#config.reminder.period > 0;
    if (remind && (type === 'DEREGISTERED' || (type === 'STATUS_CHANGED' && !this.#reminderStatuses.has(item.to)))) {
      await reminders.end(item.instance).catch((error: unknown) => this.#log.warn(`cannot clear the reminder of ${item.instance}: ${messageOf(error)}`));
    }
    if (!channels.some((channel) => channel.rules.wants(type))) return;
    let from = item.from;
    if (type === 'STATUS_CHANGED' && this.#config.hold > 0) {
      if (!(await this.#sleep(Date.parse(item.timestamp) + this.#config.hold - Date.now()))) return new Promise<void>(() => undefined);
      const held = heldChange(item, ctx.registry.eventsOf(item.instance), this.#config.hold);
      if (!held) {
        stats.held += 1;
        return;
      }
      from = held.from;
    }
    if (type === 'STATUS_CHANGED' && sameNotifiedStatus(from, item.to)) return;
    const instance = ctx.registry.get(item.instance);
    // As SBA re-reads the instance: nothing is said of a status change once the instance is gone.
    if (!instance?.registration || (type === 'STATUS_CHANGED' && !instance.registered)) return;
    const filter = await filters.matching(instance.id, instance.registration.name).catch((error: unknown) => {
      this.#log.warn(`cannot read the notification filters (notifying anyway): ${messageOf(error)}`);
      return undefined;
    });
    if (filter) {
      stats.filtered += 1;
      this.#log.debug(`${instance.id} ${type} not notified: filter ${filter.id}`);
      return;
    }
    if (this.#stopped) return new Promise<void>(() => undefined);
    const facts = notifiedInstance(instance, ctx.views, item.to);
    const notification = instanceNotification(facts, { type, from, to: item.to, version: item.version, timestamp: item.timestamp }, this.options.baseUrl());
    const completion = new Completion(item.held);
    this.#rate.add({ notification, completion });
    arrive();
    if (remind && type === 'STATUS_CHANGED' && this.#reminderStatuses.has(item.to)) {
      await reminders.begin(item.instance, { status: item.to, from, version: item.version, timestamp: item.timestamp })
        .catch((error: unknown) => this.#log.warn(`cannot record the reminder of ${item.instance}: ${messageOf(error)}`));
    }
    completion.release();
    return completion.done;
  }

  /** One reminder round: every instance still in a reminder status after `reminder.period` is notified again. */
  async remind(): Promise<void> {
    const { ctx, filters, reminders, stats, channels } = this.options;
    const period = this.#config.reminder.period;
    if (period <= 0 || this.#stopped || !ctx.services.use(LEASES)!.lease('notify-reminders').held) return;
    const due: InstanceNotification[] = [];
    for (const [id, state] of await reminders.due(period)) {
      const instance = ctx.registry.get(id);
      if (!instance?.registered || !instance.registration || instance.statusInfo.status !== state.status) {
        await reminders.end(id);
        continue;
      }
      if (await filters.matching(id, instance.registration.name)) continue;
      const sent = await reminders.sent(id, state);
      due.push(instanceNotification(notifiedInstance(instance, ctx.views, state.status), {
        type: 'STATUS_CHANGED', from: state.from, to: state.status, version: state.version, timestamp: state.timestamp, reminder: sent.count,
      }, this.options.baseUrl()));
    }
    if (due.length === 0 || this.#stopped) return;
    stats.reminders += due.length;
    for (const channel of channels) {
      if (!channel.reminders) continue;
      const accepted = due.filter((n) => channel.rules.accepts('STATUS_CHANGED', n.from, n.to, true));
      if (accepted.length === 1) channel.queue.push(accepted[0]!.instance.id, accepted[0]!, []);
      else if (accepted.length > 1) channel.queue.push('group', this.#group(accepted, true), []);
    }
  }

  stop(): void {
    this.#stopped = true;
    this.#rate.stop();
    this.#batcher.stop();
    this.#storm.stop();
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
  }

  #dispatch(entries: readonly Entry[], grouped: boolean): void {
    this.#storm.dispatched(entries.map((entry) => entry.notification));
    for (const channel of this.options.channels) {
      const accepted = entries.filter(({ notification: n }) => channel.rules.accepts(n.type, n.from, n.to));
      if (accepted.length === 0) continue;
      if (grouped && accepted.length > 1) {
        for (const entry of accepted) entry.completion.hold();
        channel.queue.push('group', this.#group(accepted.map((entry) => entry.notification), false), accepted.map((entry) => entry.completion));
        continue;
      }
      for (const entry of accepted) {
        entry.completion.hold();
        channel.queue.push(entry.notification.instance.id, entry.notification, [entry.completion]);
      }
    }
  }

  #group(items: readonly InstanceNotification[], reminder: boolean): GroupNotification {
    return { kind: 'group', id: `group-${items[0]!.id}-${items.length}`, timestamp: new Date().toISOString(), items, reminder, baseUrl: this.options.baseUrl() };
  }

  #summarize(direction: 'lost' | 'regained', entries: readonly Entry[], total: number): void {
    const instances = new Map(entries.map(({ notification: n }) => [n.instance.id, { id: n.instance.id, name: n.instance.name }]));
    const changes = entries.map((entry) => entry.notification);
    const told = this.options.channels.filter((channel) => changes.some((n) => channel.rules.accepts(n.type, n.from, n.to))).map((channel) => channel.name);
    const remaining = direction === 'lost' ? this.#storm.lost(changes, told) : this.#storm.regained(changes);
    const summary: SummaryNotification = {
      kind: 'summary',
      id: `summary-${direction}-${entries[0]!.notification.id}`,
      timestamp: new Date().toISOString(),
      direction,
      count: instances.size,
      total,
      remaining,
      instances: [...instances.values()].slice(0, SUMMARY_LIST),
      baseUrl: this.options.baseUrl(),
    };
    this.options.stats.summaries += 1;
    const still = direction === 'regained' && remaining > 0 ? `; ${remaining} still failing, the storm stays open` : '';
    this.#log.warn(`self-preservation: ${direction} contact with ${summary.count} of ${total} instances within ${this.#config['self-preservation-window']} ms; one summary instead of a message each${still}`);
    for (const channel of this.options.channels) {
      const accepted = entries.filter(({ notification: n }) => channel.rules.accepts(n.type, n.from, n.to));
      if (accepted.length === 0) continue;
      for (const entry of accepted) entry.completion.hold();
      channel.queue.push('summary', summary, accepted.map((entry) => entry.completion));
    }
  }

  /** The storm's instances still failing after the others came back, each told on its own (grouped with `group-window`), filters permitting. */
  async #followUp(changes: readonly InstanceNotification[]): Promise<void> {
    const entries: Entry[] = [];
    for (const notification of changes) {
      const filter = await this.options.filters.matching(notification.instance.id, notification.instance.name).catch((error: unknown) => {
        this.#log.warn(`cannot read the notification filters (notifying anyway): ${messageOf(error)}`);
        return undefined;
      });
      if (filter) {
        this.options.stats.filtered += 1;
        continue;
      }
      entries.push({ notification: { ...notification, baseUrl: this.options.baseUrl() }, completion: new Completion() });
    }
    if (this.#stopped || entries.length === 0) return;
    this.#dispatch(entries, this.#config['group-window'] > 0);
    for (const entry of entries) entry.completion.release();
  }

  /** Every instance of a storm left open by its `regained` summary is back: the channels told of the storm hear that it is over. */
  #stormOver(storm: { count: number; instances: readonly { id: string; name: string }[]; channels: ReadonlySet<string> }): void {
    if (this.#stopped) return;
    const summary: SummaryNotification = {
      kind: 'summary',
      id: `summary-recovered-${Date.now()}`,
      timestamp: new Date().toISOString(),
      direction: 'recovered',
      count: storm.count,
      total: this.options.ctx.registry.list().length,
      remaining: 0,
      instances: storm.instances,
      baseUrl: this.options.baseUrl(),
    };
    this.options.stats.summaries += 1;
    for (const channel of this.options.channels) {
      if (storm.channels.has(channel.name)) channel.queue.push('summary', summary, []);
    }
  }

  /** Resolves true after `ms`, or false if the pipeline stops first. */
  #sleep(ms: number): Promise<boolean> {
    if (ms <= 0) return Promise.resolve(!this.#stopped);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.#timers.delete(timer);
        resolve(!this.#stopped);
      }, ms);
      this.#timers.add(timer);
    });
  }
}
