import { detectEndpointsCommand, messageOf, type Logger, type Ownership, type Registry } from '../../core/plugin-api.js';
import { type DetectionStrategy } from '../../core/kits/services/index.js';
import type { Endpoint, Instance } from '../../core/domain/index.js';
import type { CancelToken } from './cancellation.js';
import type { CheckOutcome } from './check-outcome.js';
import type { ForeignEndpointFilter } from './foreign-endpoints.js';
import { recordResult } from './record.js';

const NO_DETECTION_STATUSES = new Set(['OFFLINE', 'UNKNOWN']);

/**
 * SBA's EndpointDetector with its ChainingStrategy: the strategies (contributed by `detect-*`
 * plugins, in `plugins:` order) are asked in turn and the first non-empty answer wins. A
 * strategy that throws counts as empty. Runs for one instance at a time: a second request for
 * the same instance while one runs shares its result.
 */
export class EndpointDetector {
  readonly #running = new Map<string, Promise<CheckOutcome>>();

  constructor(
    private readonly registry: Registry,
    private readonly strategies: readonly DetectionStrategy[],
    private readonly log: Logger,
    /** Upper bound for one whole chain, so a strategy that never settles cannot hold a slot. */
    public timeoutMs: number,
    /** Drops endpoints on other hosts than the instance's own. */
    private readonly foreign: ForeignEndpointFilter,
    private readonly ownership: Ownership,
  ) {}

  /** Whether any strategy is loaded; without one, detection is off. */
  get enabled(): boolean {
    return this.strategies.length > 0;
  }

  readonly detect = (id: string, cancel: CancelToken): Promise<CheckOutcome> => {
    const running = this.#running.get(id);
    if (running) return running;
    const run = this.#detect(id, cancel).finally(() => this.#running.delete(id));
    this.#running.set(id, run);
    return run;
  };

  /** Whether the preconditions of detection hold (reference §5). */
  static applies(instance: Instance | undefined): boolean {
    return !!instance?.registered && !!instance.registration?.managementUrl?.trim() && !NO_DETECTION_STATUSES.has(instance.statusInfo.status);
  }

  async #detect(id: string, cancel: CancelToken): Promise<CheckOutcome> {
    const instance = this.registry.get(id);
    if (!instance?.registered) return 'gone';
    if (cancel.cancelled || !this.enabled || !EndpointDetector.applies(instance)) return 'skipped';
    // Strategies are contract and take an AbortSignal: one controller per detection (rare), which
    // the deadline and the check's cancellation abort.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const unsubscribe = cancel.onCancel(() => deadline.abort());
    try {
      const endpoints = this.foreign.filter(instance, await this.#chain(instance, deadline.signal));
      // A cut-short chain proves nothing: keep the endpoints known so far.
      if (cancel.cancelled) return 'skipped';
      if (deadline.signal.aborted) return 'error';
      await recordResult(this.registry, this.ownership, id, detectEndpointsCommand(endpoints));
      return 'ok';
    } finally {
      clearTimeout(timer);
      unsubscribe();
    }
  }

  async #chain(instance: Instance, signal: AbortSignal): Promise<Endpoint[]> {
    for (const strategy of this.strategies) {
      if (signal.aborted) break;
      try {
        const found = await settleBefore(strategy.detect(instance, signal), signal);
        if (found.length > 0) {
          this.log.debug(`endpoints of ${instance.id} detected by ${strategy.name}`, { count: found.length });
          return [...found];
        }
      } catch (error) {
        this.log.warn(`detection strategy ${strategy.name} failed for ${instance.id}: ${messageOf(error)}`);
      }
    }
    // Nothing found: SBA records the health-only set, which is an event only if endpoints were known.
    return [];
  }
}

/** Rejects when `signal` aborts, even if `work` never settles (a strategy that ignores its signal). */
function settleBefore<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Error('detection aborted'));
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new Error('detection timed out or was aborted'));
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}
