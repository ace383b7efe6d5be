import { LEASES, SHARED_STATE, StaleFenceError, messageOf, type Lease, type PluginContext, type SharedMap } from '../../plugin-api.js';
import type { DiscoveryConfig } from './config.js';
import { wantsService } from './filters.js';
import { STATE_MAP, desiredSet, reconcile, type RunDiff } from './reconcile.js';
import type { DiscoverySource, DiscoverySourceDefinition, RunReason } from './types.js';

/** How often a node that does not hold a source's lease looks whether it got it (cheap: a flag). */
const LEASE_CHECK_MS = 1000;
const PROBLEM_LINES = 5;
/** When runs pile up, the one that reads the origin wins over a watch's `change`. */
const PRECEDENCE: readonly RunReason[] = ['change', 'interval', 'refresh', 'start'];

/** What `discovery.ran` carries: one run of one source, applied or failed. */
export interface DiscoveryRun {
  readonly source: string;
  readonly reason: RunReason;
  /** `applied`: the registry holds what the source listed (minus withheld removals); `failed`: nothing was removed. */
  readonly outcome: 'applied' | 'failed';
  /** Instances listed after the filters (applied runs). */
  readonly listed: number;
  readonly diff?: RunDiff;
  readonly error?: string;
}

class RunTimeout extends Error {}

/**
 * The "when" of one source (SBA's triggers): a run on start, every `refresh-interval`, on
 * `instances.refresh-requested` (`POST /applications`) and when the source's watch signals a
 * change. Runs happen only while this node holds the source's lease and one at a time; requests
 * that arrive meanwhile are coalesced into one more run. A run that fails or times out changes
 * nothing, so the last good set stays.
 */
export class DiscoveryRunner {
  readonly #ctx: PluginContext<DiscoveryConfig>;
  readonly #definition: DiscoverySourceDefinition<unknown>;
  #source: DiscoverySource | undefined;
  #lease: Lease | undefined;
  #state: SharedMap | undefined;
  #timers: NodeJS.Timeout[] = [];
  #watch: AbortController | undefined;
  #running: Promise<void> | undefined;
  #queued: RunReason | undefined;
  #stopped = false;
  #lastError: string | undefined;
  #lastProblems = '';

  constructor(ctx: PluginContext<DiscoveryConfig>, definition: DiscoverySourceDefinition<unknown>) {
    this.#ctx = ctx;
    this.#definition = definition;
  }

  start(): void {
    const ctx = this.#ctx;
    this.#source = this.#definition.create({
      name: ctx.name,
      config: ctx.config,
      log: ctx.log,
      signal: ctx.signal,
      wantsService: (name) => wantsService(ctx.config, name),
    });
    this.#lease = ctx.services.use(LEASES)!.lease(ctx.name);
    this.#state = ctx.services.use(SHARED_STATE)!.map(STATE_MAP);
    this.#timers = [
      setInterval(() => this.request('interval'), ctx.config['refresh-interval']),
      setInterval(() => this.#checkLease(), LEASE_CHECK_MS),
    ];
    for (const timer of this.#timers) timer.unref();
    this.#checkLease();
  }

  /** Asks for a run; ignored unless this node holds the lease. */
  request(reason: RunReason): void {
    if (this.#stopped || !this.#watch) return;
    if (this.#running) {
      if (this.#queued === undefined || PRECEDENCE.indexOf(reason) > PRECEDENCE.indexOf(this.#queued)) this.#queued = reason;
      return;
    }
    this.#running = this.#loop(reason);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    this.#watch?.abort();
    this.#watch = undefined;
    await this.#running;
    await this.#source?.close?.();
  }

  /** Begins (watch and a first run) when the lease is gained; stops watching when it is lost. */
  #checkLease(): void {
    if (this.#stopped) return;
    const held = this.#lease?.held === true;
    if (held && !this.#watch) {
      const watch = (this.#watch = new AbortController());
      this.#source?.watch?.(() => this.request('change'), AbortSignal.any([watch.signal, this.#ctx.signal]));
      this.request('start');
    } else if (!held && this.#watch) {
      this.#ctx.log.info('this node no longer holds the lease: the source is left to the node that does');
      this.#watch.abort();
      this.#watch = undefined;
    }
  }

  async #loop(first: RunReason): Promise<void> {
    let reason: RunReason | undefined = first;
    while (reason !== undefined && !this.#stopped && this.#watch) {
      this.#queued = undefined;
      await this.#runOnce(reason);
      reason = this.#queued;
    }
    this.#running = undefined;
  }

  async #runOnce(reason: RunReason): Promise<void> {
    const ctx = this.#ctx;
    const controller = new AbortController();
    const timeout = ctx.config.timeout;
    const timer = setTimeout(() => controller.abort(new RunTimeout(`the source did not answer within ${timeout} ms`)), timeout);
    const onStop = () => controller.abort(new Error('stopping'));
    ctx.signal.addEventListener('abort', onStop, { once: true });
    try {
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
      aborted.catch(() => undefined);
      const entries = await Promise.race([this.#source!.list({ signal: controller.signal, reason }), aborted]);
      clearTimeout(timer);
      const desired = desiredSet(entries, ctx.config);
      this.#reportProblems(desired.problems);
      const lease = this.#lease!;
      if (!lease.held || lease.token === undefined) return;
      const { diff, ownedBefore, ownedAfter } = await reconcile({
        source: ctx.name, desired, config: ctx.config, registry: ctx.registry, state: this.#state!,
        fence: { lease: ctx.name, token: lease.token }, log: ctx.log, confirms: reason !== 'change', signal: ctx.signal,
      });
      if (this.#lastError !== undefined) ctx.log.info('the source answers again');
      this.#lastError = undefined;
      const untouched = diff.untouched > 0 ? `, ${diff.untouched} left to another registrant` : '';
      if (diff.withheld > 0) {
        // The withheld instances stay registered: the line says so, never "0 kept" for a source that keeps them all.
        const changes = diff.added + diff.updated + diff.kept > 0 ? `; ${diff.added} added, ${diff.updated} updated, ${diff.kept} unchanged` : '';
        ctx.log.info(`run (${reason}): would remove ${diff.withheld} of ${ownedBefore}, keeping ${ownedAfter} (more than max-removal `
          + `${Math.round(ctx.config['max-removal'] * 100)}%: withheld until the next run agrees)${changes}${untouched}`);
      } else if (diff.added + diff.updated + diff.removed > 0) {
        ctx.log.info(`run (${reason}): ${diff.added} added, ${diff.updated} updated, ${diff.removed} removed, ${diff.kept} kept${untouched}`);
      } else {
        ctx.log.debug(`run (${reason}): no change, ${diff.kept} kept`);
      }
      ctx.bus.emit('discovery.ran', { source: ctx.name, reason, outcome: 'applied', listed: desired.registrations.size, diff });
    } catch (error) {
      if (ctx.signal.aborted) return;
      const message = error instanceof StaleFenceError ? `the lease moved to another node: ${error.message}` : messageOf(error);
      // A source that stays down would log the same line every interval: once at warn is enough.
      if (message !== this.#lastError) ctx.log.warn(`run (${reason}) failed; keeping the last good set, nothing removed: ${message}`);
      else ctx.log.debug(`run (${reason}) failed again: ${message}`);
      this.#lastError = message;
      ctx.bus.emit('discovery.ran', { source: ctx.name, reason, outcome: 'failed', listed: 0, error: message });
    } finally {
      clearTimeout(timer);
      ctx.signal.removeEventListener('abort', onStop);
    }
  }

  #reportProblems(problems: readonly string[]): void {
    const summary = problems.slice(0, PROBLEM_LINES).join('; ');
    if (summary === this.#lastProblems) return;
    this.#lastProblems = summary;
    if (problems.length === 0) return;
    this.#ctx.log.warn(`skipped ${problems.length} listed instance(s) that cannot be registered: ${summary}${problems.length > PROBLEM_LINES ? '; ...' : ''}`);
  }
}
