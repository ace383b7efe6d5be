import { ALL_APPLICATIONS, EVENT_OUTBOX, LEASES, OccasionalWarning, SHARED_STATE, messageOf, type ApplicationScope, type PluginContext } from '../../core/plugin-api.js';
import type { NotificationsStatus } from '../../core/domain/index.js';
import { NOTIFICATION_CHANNEL, maskedUrl, type DeliveryTools, type NotificationChannel } from '../../core/kits/notify-channel/index.js';
import type { NotifyConfig } from './config-schema.js';
import { DeliveryQueue } from './delivery-queue.js';
import { ExpectationEvaluator } from './expectations/evaluator.js';
import { describe } from './facts.js';
import { FilterStore } from './filters.js';
import { HttpSender } from './http-sender.js';
import { warnWithoutBaseUrl } from './link-back.js';
import { MaintenanceStore } from './maintenance/store.js';
import { MaintenanceTracker, type HookedChannel } from './maintenance/tracker.js';
import { Pipeline, type ChannelRuntime } from './pipeline.js';
import { Redactor } from './redaction.js';
import { ReminderStore } from './reminders.js';
import { ChannelRules } from './rules.js';
import { Router } from './routing/router.js';
import { channelOf } from './routing/target-name.js';
import { ChannelStats, PipelineStats } from './stats.js';

/** How often a channel without repeated work looks again whether a reload gave it some. */
const IDLE_PERIOD_MS = 60_000;
/** Keys of `notify` a reload applies at once. */
const LIVE_KEYS: ReadonlySet<string> = new Set([
  'on', 'ignore-changes', 'base-url', 'max-filters', 'routes', 'maintenance', 'max-maintenance', 'expectations', 'expectations-forget-after',
]);
/** How often maintenance windows and fleet expectations are looked at (on the node holding their lease). */
const ROUND_MS = 1000;

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
  readonly maintenance: MaintenanceStore;
  #evaluator: ExpectationEvaluator | undefined;
  /** Runs the maintenance round now (after a change made through this node's API). */
  #maintenanceNow: () => void = () => undefined;
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
  /** The section whose live keys (`on`, `ignore-changes`, `base-url`, `max-filters`, windows, expectations) are in effect (a reload replaces it before `ctx.config`). */
  #rulesConfig: NotifyConfig;
  /** `notify.routes` compiled, with the section it was compiled from. */
  #router: { readonly routes: NotifyConfig['routes']; readonly router: Router } | undefined;

  constructor(private readonly ctx: PluginContext<NotifyConfig>) {
    const state = () => ctx.services.use(SHARED_STATE)!;
    this.filters = new FilterStore(state, () => this.#rulesConfig['max-filters']);
    this.#reminders = new ReminderStore(state);
    this.#rulesConfig = ctx.config;
    this.maintenance = new MaintenanceStore({
      state, recurring: () => this.#rulesConfig.maintenance, maxWindows: () => this.#rulesConfig['max-maintenance'], now: () => Date.now(),
    });
  }

  /** The routes in effect, compiled again only when a reload changed them. */
  #currentRouter(): Router {
    const routes = this.#rulesConfig.routes;
    let current = this.#router;
    if (!current || current.routes !== routes) {
      current = { routes, router: new Router(routes) };
      this.#router = current;
    }
    return current.router;
  }

  /** A window was made or deleted through this node: act on it now. */
  maintenanceChanged(): void {
    this.#maintenanceNow();
  }

  start(): void {
    const { ctx } = this;
    const config = ctx.config;
    this.#channels = ctx.services.collect(NOTIFICATION_CHANNEL);
    const sender = new HttpSender({ timeoutMs: config.delivery.timeout, proxy: config.proxy, userAgent: ctx.outbound.userAgent, signal: ctx.signal });
    this.#sender = sender;
    const globalSecrets = proxySecrets(config.proxy);
    const hooked: HookedChannel[] = [];
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
      hooked.push({ name: channel.name, hook: () => channel.maintenance, enabled: () => channel.settings.enabled, tools });
    }
    const baseUrl = () => (this.#rulesConfig['base-url'] || ctx.settings.address() || '').replace(/\/+$/, '');
    const state = () => ctx.services.use(SHARED_STATE)!;
    const leases = () => ctx.services.use(LEASES)!;
    const tracker: MaintenanceTracker = new MaintenanceTracker({
      store: this.maintenance, registry: ctx.registry, state, leases, channels: hooked, log: ctx.log.child('maintenance'), now: () => Date.now(),
      // Called from the tracker's rounds, which begin below, once the pipeline is made.
      report: (changes, window) => pipeline.afterMaintenance(changes, window),
    });
    const pipeline: Pipeline = new Pipeline({
      ctx, channels: this.#runtimes, filters: this.filters, reminders: this.#reminders, maintenance: this.maintenance, stats: this.stats, baseUrl,
      reportPending: (key) => tracker.reportPending(key),
      router: () => this.#currentRouter(),
    });
    this.#pipeline = pipeline;
    this.#stopConsuming = ctx.services.use(EVENT_OUTBOX)!.consume(pipeline.handle);
    if (config.reminder.period > 0) this.#every(config.reminder['check-interval'], () => pipeline.remind());
    this.#maintenanceNow = this.#every(ROUND_MS, () => tracker.tick(), new OccasionalWarning(ctx.log, 60_000));
    const evaluator = new ExpectationEvaluator({
      registry: ctx.registry, state, leases, baseUrl, log: ctx.log.child('expectations'), now: () => Date.now(),
      expectations: () => this.#rulesConfig.expectations,
      forgetAfter: () => this.#rulesConfig['expectations-forget-after'],
      inMaintenance: async (application, at) => (await this.maintenance.coveringApplication(application, at)) !== undefined,
      stormOpen: () => pipeline.stormOpen,
      announce: (notification) => pipeline.announce(notification),
      heldBack: () => {
        this.stats.inMaintenance += 1;
      },
    });
    this.#evaluator = evaluator;
    this.#unsubscribe.push(ctx.bus.on('instance.changed', ({ event, instance }) => {
      if (event.type === 'DEREGISTERED' && instance.registration) evaluator.departed(instance.registration.name);
    }));
    this.#every(ROUND_MS, () => evaluator.tick(), new OccasionalWarning(ctx.log, 60_000));
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

  /**
   * The body of `GET /notifications`: settings, the pipeline's counters, each channel with its
   * counters and recent deliveries (secrets masked), and each application a fleet expectation
   * covers; a caller granted some applications sees the deliveries and expectations of those alone.
   */
  async status(scope: ApplicationScope = ALL_APPLICATIONS): Promise<NotificationsStatus> {
    const config = this.ctx.config;
    const expectations = (await this.#evaluator?.view() ?? []).filter((expectation) => scope.all || scope.allows(expectation.application));
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
        routes: this.#rulesConfig.routes?.length ?? null,
        maxMaintenance: this.#rulesConfig['max-maintenance'],
        expectationsForgetAfter: this.#rulesConfig['expectations-forget-after'],
        perInstanceRate: config['per-instance-rate'],
        proxy: config.proxy ? maskedUrl(config.proxy) : null,
      },
      pipeline: {
        filtered: this.stats.filtered, held: this.stats.held, rateLimited: this.stats.rateLimited, inMaintenance: this.stats.inMaintenance, unrouted: this.stats.unrouted,
        summaries: this.stats.summaries, reminders: this.stats.reminders, expectations: this.stats.expectations,
      },
      channels: this.#channels.map((channel) => {
        const stats = this.stats.channels.get(channel.name) ?? new ChannelStats();
        return {
          name: channel.name,
          channel: channelOf(channel.name),
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
      expectations,
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

  /**
   * Runs `work` every `ms`, never two at once; a failure is logged (through `warning`, when rounds
   * are frequent: a Redis outage must not write a line a second) and the next round runs.
   * Returns a function that runs a round now (or right after the one running).
   */
  #every(ms: number, work: () => Promise<void>, warning?: OccasionalWarning): () => void {
    let running = false;
    let again = false;
    const round = () => {
      if (this.#stopped) return;
      if (running) {
        again = true;
        return;
      }
      running = true;
      work().catch((error: unknown) => {
        const message = `periodic notification work failed: ${messageOf(error)}`;
        if (warning) warning.note(() => message);
        else this.ctx.log.warn(message);
      })
        .finally(() => {
          running = false;
          if (again) {
            again = false;
            round();
          }
        });
    };
    this.#timers.push(setInterval(round, ms));
    return round;
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

