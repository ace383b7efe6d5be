import type { Attempt, DeliveryTools, Logger, Notification, NotificationChannel } from '../../core/plugin-api.js';
import type { Completion } from './completion.js';
import type { DeliverySettings } from './config-schema.js';
import { TokenBucket, fullJitter } from './pacing.js';
import type { ChannelStats, DeliveryRecord } from './stats.js';

interface Job {
  readonly key: string;
  notification: Notification;
  completions: Completion[];
  readonly created: number;
  attempts: number;
  /** queued: runnable when its turn comes; sending: an attempt in flight; waiting: a retry is scheduled. */
  state: 'queued' | 'sending' | 'waiting';
  timer?: NodeJS.Timeout;
}

export interface QueueOptions {
  readonly channel: NotificationChannel;
  readonly tools: DeliveryTools;
  readonly settings: DeliverySettings;
  readonly stats: ChannelStats;
  readonly log: Logger;
  /** Masks the channel's secrets in a line. */
  readonly redact: (text: string) => string;
  /** A short description of a notification, for logs and records. */
  readonly describe: (notification: Notification) => string;
}

/**
 * One channel's deliveries. A lane per key (an instance id; `group` and `summary` for the
 * others) keeps each instance's notifications in order: one attempt at a time per lane, so a
 * recovery never overtakes its alert. Lanes run side by side up to `concurrency`, paced by the
 * channel's token bucket. A failed attempt is retried after a full-jitter backoff (or the wait the
 * receiver asked for) until `max-attempts` or `max-age`; a retry still pending when a newer state
 * of the same instance arrives is dropped, the newer one being what matters now. The queue is
 * bounded: when full, an instance's newest pending notification replaces its older pending one.
 */
export class DeliveryQueue {
  readonly #lanes = new Map<string, Job[]>();
  /** Lanes whose head may be attempted now, oldest first (a Set keeps insertion order). */
  readonly #ready = new Set<string>();
  #bucket: TokenBucket | undefined;
  #pumpTimer: NodeJS.Timeout | undefined;
  #size = 0;
  #active = 0;
  #stopped = false;

  constructor(private readonly options: QueueOptions) {
    this.pace(options.channel.settings.rateLimit);
  }

  /** Messages per second at most from now on (0: no limit); the same rate keeps its saved-up tokens. */
  pace(rate: number): void {
    if (rate === (this.#bucket?.rate ?? 0)) return;
    this.#bucket = rate > 0 ? new TokenBucket(rate, Math.max(1, Math.floor(rate))) : undefined;
  }

  /** Queues a notification; `completions` are released once it is done (delivered, given up, superseded). */
  push(key: string, notification: Notification, completions: Completion[]): void {
    if (this.#stopped) return;
    const { stats } = this.options;
    let lane = this.#lanes.get(key);
    const head = lane?.[0];
    if (lane && head?.state === 'waiting' && notification.kind === 'instance') {
      clearTimeout(head.timer);
      this.#finish(head, 'superseded', 'a newer state of the instance arrived');
      lane = this.#lanes.get(key);
    }
    if (this.#size >= this.options.settings['queue-size']) {
      const last = lane?.at(-1);
      if (last && last.state === 'queued' && notification.kind === 'instance' && last.notification.kind === 'instance') {
        stats.coalesced += 1;
        for (const completion of last.completions) completion.release();
        last.notification = { ...notification, coalesced: last.notification.coalesced + notification.coalesced + 1 };
        last.completions = completions;
        return;
      }
      stats.dropped += 1;
      const record = this.#record(notification, 'dropped', 0, 'the queue is full');
      this.options.log.error(`${this.options.channel.name}: dropped ${record.id} (${record.summary}): the queue is full (${this.#size} pending)`);
      for (const completion of completions) completion.release();
      return;
    }
    const job: Job = { key, notification, completions, created: Date.now(), attempts: 0, state: 'queued' };
    if (lane) lane.push(job);
    else this.#lanes.set(key, (lane = [job]));
    this.#size += 1;
    stats.queued = this.#size;
    if (lane[0] === job) this.#ready.add(key);
    this.#pump();
  }

  /** Pending and in-flight notifications. */
  get size(): number {
    return this.#size;
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#pumpTimer);
    for (const lane of this.#lanes.values()) for (const job of lane) clearTimeout(job.timer);
    this.#lanes.clear();
    this.#ready.clear();
  }

  #pump(): void {
    if (this.#stopped || this.#pumpTimer) return;
    while (this.#active < this.options.settings.concurrency && this.#ready.size > 0) {
      const wait = this.#bucket?.take() ?? 0;
      if (wait > 0) {
        this.#pumpTimer = setTimeout(() => {
          this.#pumpTimer = undefined;
          this.#pump();
        }, wait);
        return;
      }
      const key = this.#ready.values().next().value as string;
      this.#ready.delete(key);
      const job = this.#lanes.get(key)![0]!;
      job.state = 'sending';
      this.#active += 1;
      this.options.stats.inFlight = this.#active;
      void this.#attempt(job);
    }
  }

  async #attempt(job: Job): Promise<void> {
    const { channel, tools, settings, stats } = this.options;
    job.attempts += 1;
    let result: Attempt;
    try {
      result = await channel.deliver(job.notification, tools);
    } catch (error) {
      result = { outcome: 'retry', reason: error instanceof Error ? error.message : String(error) };
    }
    this.#active -= 1;
    stats.inFlight = this.#active;
    // Vigil is stopping (its signal aborted the call): nothing to retry or report.
    if (this.#stopped || tools.signal.aborted) return;
    if (result.outcome === 'delivered') {
      this.#finish(job, 'delivered');
    } else if (result.outcome === 'failed') {
      this.#giveUp(job, result.reason);
    } else if ((this.#lanes.get(job.key)?.length ?? 0) > 1 && job.notification.kind === 'instance') {
      this.#finish(job, 'superseded', `${result.reason}; a newer state of the instance is queued`);
    } else {
      const delay = result.retryAfterMs ?? fullJitter(job.attempts, settings['backoff-base'], settings['backoff-cap']);
      if (job.attempts >= settings['max-attempts']) {
        this.#giveUp(job, `${result.reason} (after ${attempts(job.attempts)}, max-attempts)`);
      } else if (Date.now() + delay - job.created > settings['max-age']) {
        this.#giveUp(job, `${result.reason} (after ${attempts(job.attempts)}; the next would pass max-age)`);
      } else {
        stats.retries += 1;
        job.state = 'waiting';
        const why = result.retryAfterMs !== undefined ? ', as the receiver asked' : '';
        this.options.log.warn(this.options.redact(
          `${channel.name}: ${this.options.describe(job.notification)} not delivered (${result.reason}); attempt ${job.attempts + 1} in ${delay} ms${why}`));
        job.timer = setTimeout(() => {
          job.state = 'queued';
          this.#ready.add(job.key);
          this.#pump();
        }, delay);
      }
    }
    this.#pump();
  }

  #giveUp(job: Job, reason: string): void {
    this.options.stats.failed += 1;
    const record = this.#finish(job, 'failed', reason);
    this.options.log.error(`${this.options.channel.name}: gave up on ${record.id} (${record.summary}): ${record.reason}`);
  }

  /** Ends the lane's head job and lets the lane's next one run. */
  #finish(job: Job, outcome: DeliveryRecord['outcome'], reason?: string): DeliveryRecord {
    const lane = this.#lanes.get(job.key)!;
    lane.shift();
    this.#size -= 1;
    this.options.stats.queued = this.#size;
    if (outcome === 'delivered') this.options.stats.delivered += 1;
    if (outcome === 'superseded') this.options.stats.superseded += 1;
    if (lane.length > 0) this.#ready.add(job.key);
    else this.#lanes.delete(job.key);
    const record = this.#record(job.notification, outcome, job.attempts, reason);
    for (const completion of job.completions) completion.release();
    return record;
  }

  #record(notification: Notification, outcome: DeliveryRecord['outcome'], attempts: number, reason?: string): DeliveryRecord {
    const record: DeliveryRecord = {
      id: notification.id,
      at: new Date().toISOString(),
      outcome,
      summary: this.options.describe(notification),
      attempts,
      ...(reason !== undefined ? { reason: this.options.redact(reason) } : {}),
    };
    this.options.stats.record(record);
    return record;
  }
}

const attempts = (count: number) => `${count} attempt${count === 1 ? '' : 's'}`;
