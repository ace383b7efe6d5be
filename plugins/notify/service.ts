import {
  EVENT_OUTBOX, LEASES, NOTIFICATION_CHANNEL, SHARED_STATE, maskedUrl, type DeliveryTools, type NotificationChannel, type PluginContext,
} from '../../core/plugin-api.js';
import type { NotifyConfig } from './config-schema.js';
import { DeliveryQueue } from './delivery-queue.js';
import { describe } from './facts.js';
import { FilterStore } from './filters.js';
import { HttpSender } from './http-sender.js';
import { Pipeline, type ChannelRuntime } from './pipeline.js';
import { ReminderStore } from './reminders.js';
import { ChannelRules } from './rules.js';
import { ChannelStats, PipelineStats } from './stats.js';

const MASK = '******';

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

  constructor(private readonly ctx: PluginContext<NotifyConfig>) {
    const state = () => ctx.services.use(SHARED_STATE)!;
    this.filters = new FilterStore(state);
    this.#reminders = new ReminderStore(state);
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
      if (!channel.settings.enabled) continue;
      const secrets = [...channel.secrets, ...globalSecrets].filter((secret) => secret.length >= 4);
      const redact = (text: string) => secrets.reduce((line, secret) => line.split(secret).join(MASK), text);
      const log = ctx.log.child(channel.name);
      const tools: DeliveryTools = {
        send: (request) => sender.send(request),
        timeoutMs: config.delivery.timeout,
        signal: ctx.signal,
        log: redactingLogger(log, redact),
      };
      const queue = new DeliveryQueue({ channel, tools, settings: config.delivery, stats, log: tools.log, redact, describe });
      this.#runtimes.push({
        name: channel.name,
        rules: new ChannelRules(channel.settings.on ?? config.on, channel.settings.ignoreChanges ?? config['ignore-changes']),
        queue,
        stats,
        reminders: channel.settings.reminders,
      });
      if (channel.periodic) this.#every(channel.periodic.intervalMs, async () => {
        if (ctx.services.use(LEASES)!.lease(channel.name).held) await channel.periodic!.run(tools);
      });
    }
    const pipeline = new Pipeline({
      ctx, channels: this.#runtimes, filters: this.filters, reminders: this.#reminders, stats: this.stats,
      baseUrl: () => (config['base-url'] || ctx.settings.address() || '').replace(/\/+$/, ''),
    });
    this.#pipeline = pipeline;
    this.#stopConsuming = ctx.services.use(EVENT_OUTBOX)!.consume(pipeline.handle);
    if (config.reminder.period > 0) this.#every(config.reminder['check-interval'], () => pipeline.remind());
    const names = this.#channels.map((channel) => `${channel.name} → ${channel.target}${channel.settings.enabled ? '' : ' (disabled)'}`);
    ctx.log.info(names.length > 0 ? `channels: ${names.join(', ')}` : 'no notification channel is loaded: add notify-webhook, notify-slack, ... to plugins');
  }

  async stop(): Promise<void> {
    this.#stopConsuming?.();
    for (const timer of this.#timers) clearInterval(timer);
    this.#pipeline?.stop();
    for (const runtime of this.#runtimes) runtime.queue.stop();
    await Promise.all(this.#channels.map((channel) => channel.close?.().catch(() => undefined)));
    await this.#sender?.close();
  }

  /** The body of `GET /notifications`: settings, then each channel with its counters and recent deliveries, secrets masked. */
  status(): Record<string, unknown> {
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
        proxy: config.proxy ? maskedUrl(config.proxy) : null,
      },
      pipeline: { filtered: this.stats.filtered, held: this.stats.held, summaries: this.stats.summaries, reminders: this.stats.reminders },
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
          lastDelivery: stats.lastDelivery,
          lastFailure: stats.lastFailure,
          recent: stats.recent,
        };
      }),
    };
  }

  /** Runs `work` every `ms`, never two at once; a failure is logged and the next round runs. */
  #every(ms: number, work: () => Promise<void>): void {
    let running = false;
    this.#timers.push(setInterval(() => {
      if (running) return;
      running = true;
      work().catch((error: unknown) => this.ctx.log.warn(`periodic notification work failed: ${error instanceof Error ? error.message : String(error)}`))
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
