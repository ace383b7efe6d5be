import { LEASES, OccasionalWarning, messageOf, type Logger, type OutboxItem, type PluginContext } from '../../core/plugin-api.js';
import type {
  ApplicationNotification, GroupNotification, InstanceNotification, MaintenanceWindowFacts, NotifiedInstanceEventType, SummaryNotification,
} from '../../core/kits/notify-channel/index.js';
import type { Instance } from '../../core/domain/index.js';
import { Batcher, type Entry } from './batcher.js';
import { Completion } from './completion.js';
import type { NotifyConfig } from './config-schema.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { instanceNotification, notifiedInstance } from './facts.js';
import type { FilterStore } from './filters.js';
import { heldChange } from './hold.js';
import { InstanceRateLimit } from './instance-rate.js';
import type { MaintenanceStore } from './maintenance/store.js';
import type { ChangeAfterMaintenance } from './maintenance/tracker.js';
import type { ActiveWindow } from './maintenance/window.js';
import type { ReminderStore } from './reminders.js';
import type { ChannelRules } from './rules.js';
import type { RouteFacts, Router } from './routing/router.js';
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
  readonly maintenance: MaintenanceStore;
  /** Whether the end report of the window `key` is still to be made (the maintenance tracker's answer). */
  readonly reportPending: (key: string) => Promise<boolean>;
  readonly stats: PipelineStats;
  readonly baseUrl: () => string;
  /** `notify.routes` as in effect now (a reload replaces it). */
  readonly router: () => Router;
}

/** The targets a notification was routed to: `all` without routes. */
type Targets = ReadonlySet<string> | 'all';
/** Without routes, every channel's default target (`notify-slack`) gets everything, and named targets nothing. */
const routedTo = (targets: Targets, channel: ChannelRuntime): boolean => (targets === 'all' ? !channel.name.includes(':') : targets.has(channel.name));

const NOTIFIED: ReadonlySet<string> = new Set<NotifiedInstanceEventType>(['REGISTERED', 'DEREGISTERED', 'STATUS_CHANGED']);
/** How long after it a change made after a window's end waits, at most, for the window's end report. */
const END_REPORT_WAIT_MS = 60_000;
/** How often a waiting change asks whether the report is made (the tracker's round is a second). */
const END_REPORT_POLL_MS = 100;

/**
 * From an outbox item to the channels' queues: triggers → hold → filters → maintenance windows →
 * the instance's rate → storm control and grouping → each channel's rules → its delivery queue. `handle` resolves when
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
  /**
   * The arrival in the batcher of each instance's latest item: the next item of the instance waits
   * for it, so however long each one's reads of filters and windows take, an instance's changes
   * reach the batcher (and the channels) in the order they were recorded.
   */
  readonly #lastArrival = new Map<string, Promise<void>>();
  /** Windows that cannot be read (Redis away) are said once a minute, not once per change. */
  readonly #unreadableWindows: OccasionalWarning;
  #stopped = false;

  constructor(private readonly options: PipelineOptions) {
    const config = options.ctx.config;
    this.#config = config;
    this.#log = options.ctx.log;
    this.#unreadableWindows = new OccasionalWarning(this.#log, 60_000);
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
    const previous = this.#lastArrival.get(id);
    let release!: () => void;
    const arrival = new Promise<void>((resolve) => {
      release = resolve;
    });
    this.#lastArrival.set(id, arrival);
    let arrived = false;
    const arrive = () => {
      if (arrived) return;
      arrived = true;
      const left = this.#arriving.get(id)! - 1;
      if (left > 0) this.#arriving.set(id, left);
      else this.#arriving.delete(id);
      release();
      if (this.#lastArrival.get(id) === arrival) this.#lastArrival.delete(id);
    };
    try {
      if (previous) await previous;
      return await this.#handle(item, arrive);
    } finally {
      arrive();
    }
  };

  /** `handle` for an item of a notified type; `arrive` is called once the change is in the batcher (or dropped). */
  async #handle(item: OutboxItem, arrive: () => void): Promise<void> {
    const type = item.type as NotifiedInstanceEventType;
    const { ctx, filters, reminders, stats, channels } = this.options;
    const remind = this.#config.reminder.period > 0;
    if (remind && (type === 'DEREGISTERED' || (type === 'STATUS_CHANGED' && !this.#reminderStatuses.has(item.to)))) {
      await reminders.end(item.instance).catch((error: unknown) => this.#log.warn(`cannot clear the reminder of ${item.instance}: ${messageOf(error)}`));
    }
    if (!channels.some((channel) => channel.rules.wants(type))) return;
    let from = item.from;
    if (type === 'STATUS_CHANGED' && this.#config.hold > 0) {
      if (!(await this.#sleep(Date.parse(item.timestamp) + this.#config.hold - Date.now()))) return new Promise<void>(() => undefined);
      const application = ctx.registry.get(item.instance)?.registration?.name;
      const inWindow = async (at: number) => application !== undefined && (await this.#covering(item.instance, application, at)) !== undefined;
      // A cluster node may hold only the newest events of an instance it does not check: the rest from Redis.
      const held = await heldChange(item, await ctx.registry.readEventsOf(item.instance), this.#config.hold, inWindow);
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
    // Whether the change happened inside a window (a held change may arrive after its end): the tracker reports what it left behind.
    if (await this.#inMaintenance(instance.id, instance.registration.name, Date.parse(item.timestamp), type)) return;
    await this.#afterEndReports(instance.id, instance.registration.name, Date.parse(item.timestamp));
    if (this.#stopped) return new Promise<void>(() => undefined);
    if (this.#unrouted({ application: instance.registration.name, metadata: [metadataOf(instance)], type, status: item.to }, (rules) => rules.accepts(type, from, item.to))) return;
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
    // One instant for the round: the windows are then read once for it, not once per reminder.
    const now = Date.now();
    for (const [id, state] of await reminders.due(period)) {
      const instance = ctx.registry.get(id);
      if (!instance?.registered || !instance.registration || instance.statusInfo.status !== state.status) {
        await reminders.end(id);
        continue;
      }
      if (await filters.matching(id, instance.registration.name)) continue;
      if (await this.#inMaintenance(id, instance.registration.name, now, 'reminder')) continue;
      const sent = await reminders.sent(id, state);
      due.push(instanceNotification(notifiedInstance(instance, ctx.views, state.status), {
        type: 'STATUS_CHANGED', from: state.from, to: state.status, version: state.version, timestamp: state.timestamp, reminder: sent.count,
      }, this.options.baseUrl()));
    }
    if (due.length === 0 || this.#stopped) return;
    stats.reminders += due.length;
    for (const channel of channels) {
      if (!channel.reminders) continue;
      const accepted = due.filter((n) => channel.rules.accepts('STATUS_CHANGED', n.from, n.to, true) && routedTo(this.#targetsOf(n), channel));
      if (accepted.length === 1) channel.queue.push(accepted[0]!.instance.id, accepted[0]!, []);
      else if (accepted.length > 1) channel.queue.push('group', this.#group(accepted, true), []);
    }
  }

  /**
   * The end of a maintenance window: each change it left behind, as one change from the status
   * before the window, through filters, the instance's rate, grouping and the channels' rules like
   * any other. Reminders start for those that ended in a reminder status.
   */
  async afterMaintenance(changes: readonly ChangeAfterMaintenance[], window: MaintenanceWindowFacts): Promise<void> {
    const { ctx, filters, reminders, stats } = this.options;
    const remind = this.#config.reminder.period > 0;
    for (const { instance, from, to, version, timestamp } of changes) {
      if (this.#stopped) return;
      const filter = await filters.matching(instance.id, instance.registration!.name).catch(() => undefined);
      if (filter) {
        stats.filtered += 1;
        continue;
      }
      if (this.#unrouted({ application: instance.registration!.name, metadata: [metadataOf(instance)], type: 'STATUS_CHANGED', status: to }, (rules) => rules.accepts('STATUS_CHANGED', from, to))) continue;
      const base = instanceNotification(notifiedInstance(instance, ctx.views, to), {
        type: 'STATUS_CHANGED', from, to, version, timestamp,
      }, this.options.baseUrl());
      const notification: InstanceNotification = { ...base, id: `${base.id}-after-${window.id}`, afterMaintenance: window.id };
      const completion = new Completion();
      this.#rate.add({ notification, completion });
      if (remind && this.#reminderStatuses.has(to)) {
        await reminders.begin(instance.id, { status: to, from, version, timestamp })
          .catch((error: unknown) => this.#log.warn(`cannot record the reminder of ${instance.id}: ${messageOf(error)}`));
      }
      completion.release();
    }
  }

  /**
   * A fleet expectation's verdict on an application, to each channel whose `on` has its type,
   * unless a notification filter silences the application. Maintenance windows are the
   * evaluator's to respect (it holds its verdict back while the application is in one).
   */
  async announce(notification: ApplicationNotification): Promise<void> {
    const { filters, stats, channels } = this.options;
    if (this.#stopped) return;
    const filter = await filters.matching('', notification.application).catch((error: unknown) => {
      this.#log.warn(`cannot read the notification filters (notifying anyway): ${messageOf(error)}`);
      return undefined;
    });
    if (filter) {
      stats.filtered += 1;
      return;
    }
    const facts: RouteFacts = {
      application: notification.application,
      metadata: this.options.ctx.registry.list().filter((instance) => instance.registration?.name === notification.application).map(metadataOf),
      type: notification.type,
    };
    if (this.#unrouted(facts, (rules) => rules.wants(notification.type))) return;
    const targets = this.options.router().targetsOf(facts);
    stats.expectations += 1;
    for (const channel of channels) {
      if (channel.rules.wants(notification.type) && routedTo(targets, channel)) channel.queue.push(`application:${notification.application}`, notification, []);
    }
  }

  /** Whether a storm is open on this node: most instances are out of contact, so no application is judged on its own. */
  get stormOpen(): boolean {
    return this.#storm.open;
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
    const targets = entries.map((entry) => this.#targetsOf(entry.notification));
    for (const channel of this.options.channels) {
      const accepted = entries.filter(({ notification: n }, index) => routedTo(targets[index]!, channel) && channel.rules.accepts(n.type, n.from, n.to));
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

  /**
   * One summary instead of a message per instance, per target: each target hears of the instances
   * routed to it (and accepted by its rules), so a team is never told of another team's storm.
   */
  #summarize(direction: 'lost' | 'regained', entries: readonly Entry[], total: number): void {
    const changes = entries.map((entry) => entry.notification);
    const targets = changes.map((n) => this.#targetsOf(n));
    const perChannel = this.options.channels
      .map((channel) => ({ channel, accepted: entries.filter(({ notification: n }, index) => routedTo(targets[index]!, channel) && channel.rules.accepts(n.type, n.from, n.to)) }))
      .filter(({ accepted }) => accepted.length > 0);
    const told = perChannel.map(({ channel }) => channel.name);
    const remaining = direction === 'lost' ? this.#storm.lost(changes, told) : this.#storm.regained(changes);
    const count = new Set(changes.map((n) => n.instance.id)).size;
    this.options.stats.summaries += 1;
    const still = direction === 'regained' && remaining > 0 ? `; ${remaining} still failing, the storm stays open` : '';
    this.#log.warn(`self-preservation: ${direction} contact with ${count} of ${total} instances within ${this.#config['self-preservation-window']} ms; one summary instead of a message each${still}`);
    const routing = this.options.router().routing;
    for (const { channel, accepted } of perChannel) {
      // Without routes every channel hears of the whole storm, as before targets existed.
      const instances = new Map((routing ? accepted : entries).map(({ notification: n }) => [n.instance.id, { id: n.instance.id, name: n.instance.name }]));
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
      for (const entry of accepted) entry.completion.hold();
      channel.queue.push('summary', summary, accepted.map((entry) => entry.completion));
    }
  }

  /** The storm's instances still failing after the others came back, each told on its own (grouped with `group-window`), filters permitting. */
  async #followUp(changes: readonly InstanceNotification[]): Promise<void> {
    const entries: Entry[] = [];
    // One instant for the batch: the windows are then read once for it, not once per change.
    const now = Date.now();
    for (const notification of changes) {
      const filter = await this.options.filters.matching(notification.instance.id, notification.instance.name).catch((error: unknown) => {
        this.#log.warn(`cannot read the notification filters (notifying anyway): ${messageOf(error)}`);
        return undefined;
      });
      if (filter) {
        this.options.stats.filtered += 1;
        continue;
      }
      if (await this.#inMaintenance(notification.instance.id, notification.instance.name, now, 'follow-up')) continue;
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
    const routing = this.options.router().routing;
    for (const channel of this.options.channels) {
      if (!storm.channels.has(channel.name)) continue;
      if (!routing) {
        channel.queue.push('summary', summary, []);
        continue;
      }
      // Each target hears of its own instances, as it was told of the storm.
      const instances = storm.instances.filter((instance) => routedTo(this.#targetsOfStored(instance.id, instance.name), channel));
      if (instances.length > 0) channel.queue.push('summary', { ...summary, count: instances.length, instances }, []);
    }
  }

  /**
   * Drops a notification that no route matches (with routes configured); counted as unrouted when
   * some channel would have taken it (`accepted` by its rules), so ignored changes do not count.
   */
  #unrouted(facts: RouteFacts, accepted: (rules: ChannelRules) => boolean): boolean {
    const targets = this.options.router().targetsOf(facts);
    if (targets === 'all' || targets.size > 0) return false;
    if (this.options.channels.some((channel) => accepted(channel.rules))) this.options.stats.unrouted += 1;
    this.#log.debug(`${facts.application} ${facts.type} not notified: no route matches`);
    return true;
  }

  /** The targets an instance's notification is routed to (its metadata and tags as registered). */
  #targetsOf(n: InstanceNotification): Targets {
    const router = this.options.router();
    if (!router.routing) return 'all';
    const stored = this.options.ctx.registry.get(n.instance.id);
    return router.targetsOf({ application: n.instance.name, metadata: [stored ? metadataOf(stored) : n.instance.metadata], type: n.type, status: n.to });
  }

  /** The targets an instance's recovery goes to: where the end of a storm is told. */
  #targetsOfStored(id: string, name: string): Targets {
    const stored = this.options.ctx.registry.get(id);
    return this.options.router().targetsOf({ application: name, metadata: stored ? [metadataOf(stored)] : [], type: 'STATUS_CHANGED', status: 'UP' });
  }

  /** Whether a maintenance window over the instance ran at `at`; counted and logged when so. A window store that cannot be read holds nothing back. */
  async #inMaintenance(id: string, application: string, at: number, what: string): Promise<boolean> {
    const window = await this.#covering(id, application, at);
    if (!window) return false;
    this.options.stats.inMaintenance += 1;
    this.#log.debug(`${id} ${what} not notified: maintenance ${window.facts.id}`);
    return true;
  }

  /** The window over the instance at `at`, if any; none when the windows cannot be read. */
  #covering(id: string, application: string, at: number): Promise<ActiveWindow | undefined> {
    return this.options.maintenance.covering(id, application, at).catch((error: unknown) => {
      this.#unreadableWindows.note(() => `cannot read the maintenance windows (notifying anyway): ${messageOf(error)}`);
      return undefined;
    });
  }

  /**
   * A change made after the end of a window over the instance waits for that window's end report,
   * so the channels hear of what the window left before what came after it (a recovery after the
   * outage, never before it). At most until `END_REPORT_WAIT_MS` after the change: a report that
   * does not come (the node that makes it is gone) does not hold notifications back for long.
   */
  async #afterEndReports(id: string, application: string, at: number): Promise<void> {
    const keys = await this.options.maintenance.endedWithin(id, application, at - END_REPORT_WAIT_MS, at).catch(() => []);
    for (const key of keys) {
      let waited = false;
      while (await this.options.reportPending(key).catch(() => false)) {
        if (!waited) this.#log.debug(`${id} waits for the end report of maintenance ${key}`);
        waited = true;
        if (Date.now() >= at + END_REPORT_WAIT_MS) {
          this.#log.warn(`${id}: the end report of maintenance ${key} is not made yet; notifying its change after the window all the same`);
          return;
        }
        if (!(await this.#sleep(END_REPORT_POLL_MS))) return;
      }
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

/** What routes match on: the instance's tags and metadata (metadata wins on a shared key). */
function metadataOf(instance: Instance): Readonly<Record<string, string>> {
  return { ...instance.tags, ...(instance.registration?.metadata ?? {}) };
}
