import { OWNERSHIP, type Logger, type PluginContext } from '../../core/plugin-api.js';
import { DETECTION_STRATEGY, ENDPOINT_DETECTOR, HEALTH_GROUPS, INSTANCE_HTTP } from '../../core/kits/services/index.js';
import type { Instance } from '../../core/domain/index.js';
import { Cancellation } from './cancellation.js';
import { CheckMetrics } from './check-metrics.js';
import { ConcurrencyLimiter } from './concurrency-limiter.js';
import type { MonitorConfig } from './config-schema.js';
import { EndpointDetector } from './endpoint-detector.js';
import { FlapDamper } from './flap-damper.js';
import { FollowUpGovernor } from './follow-up-governor.js';
import { HealthGroupsCache } from './health-groups.js';
import { ForeignEndpointFilter } from './foreign-endpoints.js';
import { InfoUpdater } from './info-updater.js';
import { DEFAULT_MAX_BODY_BYTES, InstanceClient } from './instance-client.js';
import { IntervalCheck } from './interval-check.js';
import { OfflineRemoval } from './offline-removal.js';
import { StatusUpdater, statusCallCutOff } from './status-updater.js';
import { subscribeTriggers, whileOwned, type Checks } from './triggers.js';

interface Running {
  readonly checks: Checks;
  readonly detector: EndpointDetector;
  readonly status: StatusUpdater;
  readonly limiter: ConcurrencyLimiter;
  readonly followUps: FollowUpGovernor;
  readonly foreign: ForeignEndpointFilter;
  readonly removal: OfflineRemoval;
  readonly strategies: number;
  readonly unsubscribe: () => void;
}

/**
 * One kernel's monitoring: built in `setup` (the client and the services other plugins use),
 * started in `start` (strategies, schedules, bus triggers), torn down in `stop`.
 */
export class Monitor {
  readonly #ctx: PluginContext<MonitorConfig>;
  readonly #client: InstanceClient;
  /** Cancels every call of ours at stop, before the agent closes. */
  readonly #shutdown = new Cancellation();
  readonly #damper: FlapDamper;
  readonly #metrics = new CheckMetrics();
  readonly #groups: HealthGroupsCache;
  #running: Running | undefined;

  constructor(ctx: PluginContext<MonitorConfig>) {
    this.#ctx = ctx;
    const config = ctx.config;
    this.#client = new InstanceClient({
      defaultTimeout: config['default-timeout'],
      defaultRetries: config['default-retries'],
      timeouts: config.timeout,
      retries: config.retries,
      connectionsPerOrigin: config['max-connections-per-origin'],
      outbound: ctx.outbound,
      shutdown: this.#shutdown,
    });
    this.#damper = new FlapDamper(config['failures-before-down'], config['successes-before-up']);
    ctx.services.provide(INSTANCE_HTTP, this.#client);
    ctx.services.provide(ENDPOINT_DETECTOR, { ensureDetected: (id) => this.ensureDetected(id) });
    this.#metrics.contribute(ctx.services, () => this.#running?.followUps);
    this.#groups = new HealthGroupsCache(ctx.services, ctx.log);
    ctx.services.provide(HEALTH_GROUPS, this.#groups);
  }

  start(): void {
    const ctx = this.#ctx;
    const config = ctx.config;
    const { registry, log } = ctx;
    warnAboutTimeouts(config, log);
    const strategies = ctx.services.collect(DETECTION_STRATEGY);
    if (strategies.length === 0) log.info('no detection strategy loaded: endpoints are not detected');
    const limiter = new ConcurrencyLimiter(config['max-concurrent-checks']);
    const followUps = new FollowUpGovernor({ max: config['max-concurrent-follow-ups'] });
    const ownership = ctx.services.use(OWNERSHIP)!;
    const detectionLog = log.child('detection');
    const foreign = new ForeignEndpointFilter(config['allow-foreign-endpoints'], detectionLog);
    const detector = new EndpointDetector(registry, strategies, detectionLog, detectionDeadline(config, strategies.length), foreign, ownership);
    const removal = new OfflineRemoval(config['deregister-offline-after'], registry, log);
    const status = new StatusUpdater({
      registry,
      ownership,
      client: this.#client,
      damper: this.#damper,
      detection: config['status-change-detection'],
      maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
      callCutOff: statusCallCutOff(config['status-interval']),
      groups: this.#groups,
      removal,
      log,
    });
    const info = new InfoUpdater(registry, ownership, this.#client, DEFAULT_MAX_BODY_BYTES);
    const checks: Checks = {
      status: new IntervalCheck({
        name: 'status', observe: this.#metrics.observer('status'), check: whileOwned(ownership, status.update), limiter, followUps, log,
        interval: config['status-interval'], lifetime: config['status-lifetime'], maxBackoff: config['status-max-backoff'],
      }),
      info: new IntervalCheck({
        name: 'info', observe: this.#metrics.observer('info'), check: whileOwned(ownership, info.update), limiter, followUps, log,
        interval: config['info-interval'], lifetime: config['info-lifetime'], maxBackoff: config['info-max-backoff'],
      }),
      detection: detector.enabled
        ? new IntervalCheck({
          name: 'detection', observe: this.#metrics.observer('detection'), check: whileOwned(ownership, detector.detect), limiter, followUps, log,
          interval: config['detection-interval'], lifetime: config['detection-interval'], maxBackoff: config['detection-interval'],
        })
        : undefined,
    };
    // Subscribed here, not in setup: a trigger starts I/O, which setup must not.
    const unsubscribe = subscribeTriggers(ctx.bus, registry, ownership, checks, (id) => {
      this.#damper.forget(id);
      this.#groups.forget(id);
    });
    this.#running = { checks, detector, status, limiter, followUps, foreign, removal, strategies: strategies.length, unsubscribe };
    for (const check of [checks.status, checks.info, checks.detection]) check?.start();
    // Anything registered before start (between listen and start) is checked now.
    for (const instance of registry.list()) if (ownership.owns(instance.id)) checks.status.resume(instance.id);
    // The kernel aborts its signal before plugins stop (later plugins stop first): quiet down at once.
    ctx.signal.addEventListener('abort', () => this.#halt(), { once: true });
  }

  /**
   * Applies a changed `monitor` section while running: intervals, lifetimes, backoffs, time-outs,
   * retries, damping, concurrency and the foreign-endpoint rule. No call in flight is cut and no
   * connection dropped. Returns the keys that need a restart (the connection pool's size).
   */
  reload(config: MonitorConfig): string[] {
    const ctx = this.#ctx;
    const running = this.#running;
    const before = ctx.config;
    warnAboutTimeouts(config, ctx.log);
    this.#client.reconfigure({ defaultTimeout: config['default-timeout'], defaultRetries: config['default-retries'], timeouts: config.timeout, retries: config.retries });
    this.#damper.reconfigure(config['failures-before-down'], config['successes-before-up']);
    if (running) {
      running.status.reconfigure({ detection: config['status-change-detection'], callCutOff: statusCallCutOff(config['status-interval']) });
      running.limiter.resize(config['max-concurrent-checks']);
      running.followUps.resize(config['max-concurrent-follow-ups']);
      running.foreign.reconfigure(config['allow-foreign-endpoints']);
      running.removal.reconfigure(config['deregister-offline-after']);
      running.detector.timeoutMs = detectionDeadline(config, running.strategies);
      const cadence = (kind: 'status' | 'info') => ({ interval: config[`${kind}-interval`], lifetime: config[`${kind}-lifetime`], maxBackoff: config[`${kind}-max-backoff`] });
      if (changed(before, config, ['status-interval', 'status-lifetime', 'status-max-backoff'])) running.checks.status.reconfigure(cadence('status'));
      if (changed(before, config, ['info-interval', 'info-lifetime', 'info-max-backoff'])) running.checks.info.reconfigure(cadence('info'));
      const detection = config['detection-interval'];
      if (before['detection-interval'] !== detection) running.checks.detection?.reconfigure({ interval: detection, lifetime: detection, maxBackoff: detection });
    }
    return before['max-connections-per-origin'] === config['max-connections-per-origin'] ? [] : ['max-connections-per-origin'];
  }

  async stop(): Promise<void> {
    this.#halt();
    await this.#client.close();
  }

  /** Ends triggers and schedules and aborts every call in flight; idempotent. */
  #halt(): void {
    const running = this.#running;
    this.#running = undefined;
    if (running) {
      running.unsubscribe();
      for (const check of [running.checks.status, running.checks.info, running.checks.detection]) check?.stop();
      running.followUps.stop();
    }
    this.#shutdown.cancel();
  }

  /** The ENDPOINT_DETECTOR service: detect on first demand (e.g. a proxy request). */
  async ensureDetected(id: string): Promise<Instance | undefined> {
    const registry = this.#ctx.registry;
    const instance = registry.get(id);
    const running = this.#running;
    if (!running || !instance?.registered || instance.endpoints.length > 0 || !EndpointDetector.applies(instance)) return instance;
    // Not through the limiter: a user is waiting, and detection is bounded by its own deadline.
    await running.detector.detect(id, this.#shutdown).catch(() => undefined);
    return registry.get(id);
  }
}

/** Strategies run one after the other, each of whose calls may be retried. */
function detectionDeadline(config: MonitorConfig, strategies: number): number {
  const maxTimeout = Math.max(config['default-timeout'], ...Object.values(config.timeout));
  const maxRetries = Math.max(config['default-retries'], ...Object.values(config.retries));
  return strategies * (1 + maxRetries) * maxTimeout + 1000;
}

/** As SBA warns: the per-request time-out cannot take full effect. */
function warnAboutTimeouts(config: MonitorConfig, log: Logger): void {
  if (config['default-timeout'] <= config['status-interval']) return;
  const cutOff = statusCallCutOff(config['status-interval']);
  const effect = cutOff > 0 ? `a status check is cut off after ${cutOff} ms (|status-interval - 1 s|)` : 'a slow instance is checked less often than configured';
  log.warn(`monitor.default-timeout is longer than monitor.status-interval: ${effect}`);
}

function changed(before: MonitorConfig, after: MonitorConfig, keys: readonly (keyof MonitorConfig)[]): boolean {
  return keys.some((key) => before[key] !== after[key]);
}
