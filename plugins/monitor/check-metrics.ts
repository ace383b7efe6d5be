import { LabelledCounts, LabelledHistogram } from '../../core/kits/runtime/index.js';
import { type Services } from '../../core/plugin-api.js';
import { METRICS } from '../../core/kits/services/index.js';

/** What the gauges read of the follow-ups' line (`FollowUpGovernor`). */
export interface FollowUpLine {
  readonly waiting: number;
  readonly cap: number;
}

/** Prometheus's default bounds: health calls range from a millisecond on loopback to the time-out. */
const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The monitor's metrics: every check that reached a verdict, counted by kind (`status`, `info`,
 * `detection`) and result (`success`: the instance answered, whatever its status; `failure`: it
 * did not, e.g. a refused connection or a time-out), and its duration. Counting only: the
 * `metrics` plugin reads them when scraped.
 */
export class CheckMetrics {
  readonly #checks = new LabelledCounts(['kind', 'result']);
  readonly #durations = new LabelledHistogram(BUCKETS, ['kind']);

  /**
   * `followUps`: the line of follow-ups now (none while monitoring is stopped), for its two
   * gauges: what waits in it, and its cap, which falls while the event loop is busy.
   */
  contribute(services: Services, followUps: () => FollowUpLine | undefined): void {
    services.contribute(METRICS, {
      name: 'vigil_follow_ups_waiting', help: 'Checks an event asked for (a new instance, a status change) waiting for a follow-up slot',
      type: 'gauge', collect: () => [{ value: followUps()?.waiting ?? 0 }],
    });
    services.contribute(METRICS, {
      name: 'vigil_follow_up_limit', help: 'Follow-ups allowed in flight now: monitor.max-concurrent-follow-ups, less while the event loop is busy',
      type: 'gauge', collect: () => {
        const line = followUps();
        return line ? [{ value: line.cap }] : [];
      },
    });
    services.contribute(METRICS, {
      name: 'vigil_checks_total', help: 'Checks of instances that reached a verdict, by kind (status, info, detection) and result (success, failure)',
      type: 'counter', labelNames: ['kind', 'result'], collect: () => this.#checks.samples(),
    });
    services.contribute(METRICS, {
      name: 'vigil_check_duration_seconds', help: 'Duration of checks of instances, by kind', type: 'histogram',
      labelNames: ['kind'], buckets: BUCKETS, collect: () => this.#durations.samples(),
    });
  }

  observer(kind: string): (outcome: 'ok' | 'error', seconds: number) => void {
    const labels = { kind };
    const success = { kind, result: 'success' };
    const failure = { kind, result: 'failure' };
    return (outcome, seconds) => {
      this.#checks.inc(outcome === 'ok' ? success : failure);
      this.#durations.observe(seconds, labels);
    };
  }
}
