import type { DeliveryRecord } from '../../core/domain/index.js';
import type { ApplicationScope } from '../../core/plugin-api.js';

const RECENT = 20;

/**
 * A channel's counters and recent deliveries: one small object, so a metrics plugin can read the
 * deliveries, failures and queue length of each channel without knowing the pipeline.
 */
export class ChannelStats {
  delivered = 0;
  /** Given up: a final answer, or `max-attempts` / `max-age` reached. */
  failed = 0;
  /** Attempts that failed and were tried again. */
  retries = 0;
  /** Reminders waiting for a retry, dropped because a newer state of the same instance arrived. */
  superseded = 0;
  /** Pending notifications replaced by a newer one of the same instance (behind a retry, or while the queue was full). */
  coalesced = 0;
  /** Refused because the queue was full and nothing could be coalesced. */
  dropped = 0;
  /** Notifications waiting or in flight. */
  queued = 0;
  inFlight = 0;
  lastDelivery: DeliveryRecord | null = null;
  lastFailure: DeliveryRecord | null = null;
  readonly recent: DeliveryRecord[] = [];
  /** The applications each record is about, for callers who may see only some (kept beside, not on the wire). */
  readonly #applications = new WeakMap<DeliveryRecord, readonly string[]>();

  record(entry: DeliveryRecord, applications: readonly string[] = []): void {
    this.#applications.set(entry, applications);
    if (entry.outcome === 'delivered') this.lastDelivery = entry;
    if (entry.outcome === 'failed' || entry.outcome === 'dropped') this.lastFailure = entry;
    this.recent.unshift(entry);
    if (this.recent.length > RECENT) this.recent.length = RECENT;
  }

  /** Whether a caller seeing `scope` may see this record: every application it names is theirs (one naming none: only a caller seeing all). */
  visible(entry: DeliveryRecord | null, scope: ApplicationScope): boolean {
    if (entry === null || scope.all) return true;
    const applications = this.#applications.get(entry) ?? [];
    return applications.length > 0 && applications.every((name) => scope.allows(name));
  }
}

/** What the pipeline itself counts, beside each channel's stats. */
export class PipelineStats {
  /** Changes dropped by a notification filter. */
  filtered = 0;
  /** Changes dropped by `hold`: the instance went back (or on) within it. */
  held = 0;
  /** Changes kept back by `per-instance-rate`, folded into a later notification of the instance. */
  rateLimited = 0;
  /** Changes (and reminders) held back because the instance was in a maintenance window. */
  inMaintenance = 0;
  /** Notifications no route matched (`notify.routes`): not sent. */
  unrouted = 0;
  /** Application notifications of fleet expectations handed to the channels (DEGRADED, RECOVERED). */
  expectations = 0;
  /** Storm summaries sent instead of per-instance messages. */
  summaries = 0;
  reminders = 0;
  readonly channels = new Map<string, ChannelStats>();
}
