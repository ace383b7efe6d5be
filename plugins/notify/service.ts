import { ALL_APPLICATIONS, EVENT_OUTBOX, LEASES, SHARED_STATE, messageOf, type ApplicationScope, type PluginContext } from '../../core/plugin-api.js';
import type { NotificationsStatus } from '../../core/domain/index.js';
import { NOTIFICATION_CHANNEL, maskedUrl, type DeliveryTools, type NotificationChannel } from '../../core/kits/notify-channel/index.js';
import type { NotifyConfig } from './config-schema.js';
import { DeliveryQueue } from './delivery-queue.js';
import { describe } from './facts.js';
import { FilterStore } from './filters.js';
import { HttpSender } from './http-sender.js';
import { warnWithoutBaseUrl } from './link-back.js';
import { Pipeline, type ChannelRuntime } from './pipeline.js';
import { Redactor } from './redaction.js';
import { ReminderStore } from './reminders.js';
import { ChannelRules } from './rules.js';
import { ChannelStats, PipelineStats } from './stats.js';

/** How often a channel without repeated work looks again whether a reload gave it some. */
const IDLE_PERIOD_MS = 60_000;
/** Keys of `notify` a reload applies at once. */
const LIVE_KEYS: ReadonlySet<string> = new Set(['on', 'ignore-changes', 'base-url', 'max-filters']);

/** A channel's rules: what it is told of; nothing while it is off. */
function rulesOf(channel: NotificationChannel, config: NotifyConfig): ChannelRules {
  if (!channel.settings.enabled) return new ChannelRules([], []);
  return new ChannelRules(channel.settings.on ?? config.on, channel.settings.ignoreChanges ?? config['ignore-changes'], channel.settings.alwaysOn);
}

/**
 * One kernel's notifications: built at setup (routes only), running from start to stop. Channels
 * are collected at start, after every channel plugin has set up and contributed itself.
 */
export class NotifyService {
  readonly filters: FilterStore;
  readonly stats = new PipelineStats();
  readonly #reminders: ReminderStore;
  #channels: NotificationChannel[] = [];
  #pipeline: Pipeline | undefined;
  #runtimes: ChannelRuntime[] = [];
  #sender: HttpSender | undefined;
  #stopConsuming: (() => void) | undefined;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #unsubscribe: (() => void)[] = [];
  #stopped = false;
  /** The section whose `on`, `ignore-changes`, `base-url` and `max-filters` are in effect (a reload replaces it before `ctx.config`). */
  #rulesConfig: NotifyConfig;

  constructor(private readonly ctx: PluginContext<NotifyConfig>) {
    const state = () => ctx.services.use(SHARED_STATE)!;
    this.filters = new FilterStore(state, () => this.#rulesConfig['max-filters']);
    this.#reminders = new ReminderStore(state);
    this.#rulesConfig = ctx.config;
  }

  start(): void {
    const { ctx } = this;
    const config = ctx.config;
    this.#channels = ctx.services.collect(NOTIFICATION_CHANNEL);
    const sender = new HttpSender({ timeoutMs: config.delivery.timeout, proxy: config.proxy, userAgent: ctx.outbound.userAgent, signal: ctx.signal });
    this.#sender = sender;
    const globalSecrets = proxySecrets(config.proxy);
    for (const channel of this.#channels) {
      const stats = new ChannelStats();
      this.stats.channels.set(channel.name, stats);
      // Read at each line: a reload may bring new secrets, and the old ones stay masked.
      const { redact } = new Redactor(() => [...channel.secrets, ...globalSecrets]);
      const log = ctx.log.child(channel.name);
      const tools: DeliveryTools = {
        send: (request) => sender.send(request, redact),
        timeoutMs: config.delivery.timeout,
        signal: ctx.signal,
        log: redactingLogger(log, redact),
      };
      const queue = new DeliveryQueue({ channel, tools, settings: config.delivery, stats, log: tools.log, redact, describe });
      const runtime: ChannelRuntime = { name: channel.name, rules: rulesOf(channel, config), queue, stats, reminders: channel.settings.reminders };
      this.#runtimes.push(runtime);
      const off = channel.onChange?.(() => {
        runtime.rules = rulesOf(channel, this.#rulesConfig);
        runtime.reminders = channel.settings.reminders;
        queue.pace(channel.settings.rateLimit);
      });
      if (off) this.#unsubscribe.push(off);
      this.#periodically(channel, tools);
    }
    const pipeline = new Pipeline({
      ctx, channels: this.#runtimes, filters: this.filters, reminders: this.#reminders, stats: this.stats,
      baseUrl: () => (this.#rulesConfig['base-url'] || ctx.settings.address() || '').replace(/\/+$/, ''),
    });
    this.#pipeline = pipeline;
    this.#stopConsuming = ctx.services.use(EVENT_OUTBOX)!.consume(pipeline.handle);
    if (config.reminder.period > 0) this.#every(config.reminder['check-interval'], () => pipeline.remind());
    warnWithoutBaseUrl(ctx, this.#channels);
    const names = this.#channels.map((channel) => `${channel.name} → ${channel.target}${channel.settings.enabled ? '' : ' (disabled)'}`);
    ctx.log.info(names.length > 0 ? `channels: ${names.join(', ')}` : 'no notification channel is loaded: add notify-webhook, notify-slack, ... to plugins');
  }

  /** The keys of `notify` a reload applies; the others are returned, as needing a restart. */
  reload(next: NotifyConfig): string[] {
    const before = this.#rulesConfig;
    this.#rulesConfig = next;
    for (const [index, channel] of this.#channels.entries()) {
      const runtime = this.#runtimes[index];
      if (runtime) runtime.rules = rulesOf(channel, next);
    }
    return Object.keys({ ...before, ...next })
      .filter((key) => !LIVE_KEYS.has(key) && JSON.stringify(before[key as keyof NotifyConfig]) !== JSON.stringify(next[key as keyof NotifyConfig]));
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopConsuming?.();
    for (const off of this.#unsubscribe.splice(0)) off();
    for (const timer of this.#timers) clearInterval(timer);
    this.#pipeline?.stop();
    for (const runtime of this.#runtimes) runtime.queue.stop();
    await Promise.all(this.#channels.map((channel) => channel.close?.().catch(() => undefined)));
    await this.#sender?.close();
  }

  /** The body of `GET /notifications`: settings, then each channel with its counters and recent deliveries, secrets masked. */
  status(scope: ApplicationScope = ALL_APPLICATIONS): NotificationsStatus {
    const config = this.ctx.config;
    return {
      settings: {
        on: config.on,
        ignoreChanges: config['ignore-changes'],
        hold: config.hold,
        groupWindow: config['group-window'],
        selfPreservation: config['self-preservation'],
        reminderPeriod: config.reminder.period,
        filtersApi: config['filters-api'],
        maxFilters: this.#rulesConfig['max-filters'],
        perInstanceRate: config['per-instance-rate'],
        proxy: config.proxy ? maskedUrl(config.proxy) : null,
      },
      pipeline: {
        filtered: this.stats.filtered, held: this.stats.held, rateLimited: this.stats.rateLimited, summaries: this.stats.summaries, reminders: this.stats.reminders,
      },
      channels: this.#channels.map((channel) => {
        const stats = this.stats.channels.get(channel.name) ?? new ChannelStats();
        return {
          name: channel.name,
          target: channel.target,
          enabled: channel.settings.enabled,
          on: channel.settings.on ?? config.on,
          ignoreChanges: channel.settings.ignoreChanges ?? config['ignore-changes'],
          rateLimit: channel.settings.rateLimit,
          queued: stats.queued,
          inFlight: stats.inFlight,
          delivered: stats.delivered,
          failed: stats.failed,
          retries: stats.retries,
          superseded: stats.superseded,
          coalesced: stats.coalesced,
          dropped: stats.dropped,
          // A caller granted some applications sees the deliveries about those alone.
          lastDelivery: stats.visible(stats.lastDelivery, scope) ? stats.lastDelivery : null,
          lastFailure: stats.visible(stats.lastFailure, scope) ? stats.lastFailure : null,
          recent: scope.all ? stats.recent : stats.recent.filter((entry) => stats.visible(entry, scope)),
        };
      }),
    };
  }

  /**
   * A channel's repeated work (Alertmanager's re-sends), on the node holding the channel's lease.
   * Its period is read again each round: a reload may change it, or turn the channel on or off.
   */
  #periodically(channel: NotificationChannel, tools: DeliveryTools): void {
    const round = () => {
      const periodic = channel.periodic;
      const timer = setTimeout(() => {
        this.#timers.splice(this.#timers.indexOf(timer), 1);
        const work = periodic && channel.settings.enabled && this.ctx.services.use(LEASES)!.lease(channel.name).held ? periodic.run(tools) : Promise.resolve();
        // The channel's logger: an error may quote a receiver's answer, and with it a secret.
        work.catch((error: unknown) => tools.log.warn(`periodic notification work failed: ${messageOf(error)}`))
          .finally(() => {
            if (!this.#stopped) round();
          });
      }, periodic?.intervalMs ?? IDLE_PERIOD_MS);
      this.#timers.push(timer);
    };
    round();
  }

  /** Runs `work` every `ms`, never two at once; a failure is logged and the next round runs. */
  #every(ms: number, work: () => Promise<void>): void {
    let running = false;
    this.#timers.push(setInterval(() => {
      if (running) return;
      running = true;
      work().catch((error: unknown) => this.ctx.log.warn(`periodic notification work failed: ${messageOf(error)}`))
        .finally(() => {
          running = false;
        });
    }, ms));
  }
}

/** The proxy URL and its password: never in a line. */
function proxySecrets(proxy: string): string[] {
  if (!proxy) return [];
  try {
    const url = new URL(proxy);
    return [proxy, decodeURIComponent(url.password), url.password].filter(Boolean);
  } catch {
    return [proxy];
  }
}

function redactingLogger(log: PluginContext['log'], redact: (text: string) => string): PluginContext['log'] {
  return {
    error: (message, meta) => log.error(redact(message), meta),
    warn: (message, meta) => log.warn(redact(message), meta),
    info: (message, meta) => log.info(redact(message), meta),
    debug: (message, meta) => log.debug(redact(message), meta),
    child: (scope) => redactingLogger(log.child(scope), redact),
  };
}
