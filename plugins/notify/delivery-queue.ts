import type { Attempt, DeliveryTools, Notification, NotificationChannel } from '../../core/kits/notify-channel/index.js';
import { messageOf, type Logger } from '../../core/plugin-api.js';
import type { Completion } from './completion.js';
import type { DeliverySettings } from './config-schema.js';
import { TokenBucket } from './pacing.js';
import { nextRetry } from './retry-policy.js';
import type { DeliveryRecord } from '../../core/domain/index.js';
import type { ChannelStats } from './stats.js';

interface Job {
  readonly key: string;
  notification: Notification;
  completions: Completion[];
  readonly created: number;
  attempts: number;
  /** An attempt failed and another is due: the notifications of its lane wait behind it. */
  retrying: boolean;
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
 * receiver asked for) until `max-age` (see `nextRetry`), and the instance's later notifications
 * wait behind it: a DOWN is never dropped for the UP that followed it. Only a reminder waiting for
 * a retry gives way to a newer state (it repeats what was already said).
 *
 * Memory is bounded by `queue-size`: it counts every notification queued, in flight or waiting for
 * a retry. Behind a notification being retried an instance keeps one pending notification, its
 * newest state (earlier ones are counted in `coalesced`), and the same happens to any instance once
 * the queue is full; a notification that fits nowhere then is refused with an error line. A
 * notification already attempted is never replaced, so a retry always carries the same id.
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
    if (head?.state === 'waiting' && isReminder(head.notification) && notification.kind === 'instance') {
      clearTimeout(head.timer);
      this.#finish(head, 'superseded', 'a newer state of the instance arrived');
      lane = this.#lanes.get(key);
    }
    const full = this.#size >= this.options.settings['queue-size'];
    const last = lane?.at(-1);
    if (last && (full || lane![0]!.retrying) && last.state === 'queued' && last.attempts === 0
      && notification.kind === 'instance' && last.notification.kind === 'instance') {
      stats.coalesced += 1;
      for (const completion of last.completions) completion.release();
      last.notification = { ...notification, coalesced: last.notification.coalesced + notification.coalesced + 1 };
      last.completions = completions;
      return;
    }
    if (full) {
      stats.dropped += 1;
      const record = this.#record(notification, 'dropped', 0, 'the queue is full');
      this.options.log.error(`${this.options.channel.name}: dropped ${record.id} (${record.summary}): the queue is full (${this.#size} pending)`);
      for (const completion of completions) completion.release();
      return;
    }
    const job: Job = { key, notification, completions, created: Date.now(), attempts: 0, retrying: false, state: 'queued' };
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
    if (!job.completions.every((completion) => completion.held)) {
      this.#abandon(job);
      return;
    }
    job.attempts += 1;
    let result: Attempt;
    try {
      result = await channel.deliver(job.notification, tools);
    } catch (error) {
      result = { outcome: 'retry', reason: messageOf(error) };
    }
    this.#active -= 1;
    stats.inFlight = this.#active;
    // Vigil is stopping (its signal aborted the call): nothing to retry or report.
    if (this.#stopped || tools.signal.aborted) return;
    if (result.outcome === 'delivered') {
      this.#finish(job, 'delivered');
    } else if (result.outcome === 'failed') {
      this.#giveUp(job, result.reason);
    } else if ((this.#lanes.get(job.key)?.length ?? 0) > 1 && isReminder(job.notification)) {
      this.#finish(job, 'superseded', `${result.reason}; a newer state of the instance is queued`);
    } else {
      const next = nextRetry(result, job.attempts, job.created, settings);
      if ('giveUp' in next) {
        this.#giveUp(job, next.giveUp);
      } else {
        stats.retries += 1;
        job.state = 'waiting';
        job.retrying = true;
        const delay = next.retryInMs;
        const line = this.options.redact(`${channel.name}: ${this.options.describe(job.notification)} not delivered (${result.reason}); `
          + `attempt ${job.attempts + 1} in ${delay} ms${next.asked ? ', as the receiver asked' : ''}`);
        // Retries go on for up to an hour: a warning at attempts 1, 2, 4, 8, ... keeps a long outage
        // of a receiver visible without a line per notification per minute.
        if (isPowerOfTwo(job.attempts)) this.options.log.warn(line);
        else this.options.log.debug(line);
        job.timer = setTimeout(() => {
          job.state = 'queued';
          this.#ready.add(job.key);
          this.#pump();
        }, delay);
      }
    }
    this.#pump();
  }

  /**
   * The node lost the claim on an item of the job (it was paused or cut off past it, and another
   * node took the item over): sending now would repeat what that node sends. The job leaves its
   * lane, and its items are left to their new holders.
   */
  #abandon(job: Job): void {
    this.#active -= 1;
    this.options.stats.inFlight = this.#active;
    this.#remove(job);
    this.options.log.info(this.options.redact(`${this.options.channel.name}: ${this.options.describe(job.notification)} not sent from this node: another node took it over`));
    for (const completion of job.completions) completion.abandon();
    this.#pump();
  }

  #giveUp(job: Job, reason: string): void {
    this.options.stats.failed += 1;
    const record = this.#finish(job, 'failed', reason);
    this.options.log.error(`${this.options.channel.name}: gave up on ${record.id} (${record.summary}): ${record.reason}`);
  }

  /** Ends the lane's head job and lets the lane's next one run. */
  #finish(job: Job, outcome: DeliveryRecord['outcome'], reason?: string): DeliveryRecord {
    this.#remove(job);
    if (outcome === 'delivered') this.options.stats.delivered += 1;
    if (outcome === 'superseded') this.options.stats.superseded += 1;
    const record = this.#record(job.notification, outcome, job.attempts, reason);
    for (const completion of job.completions) completion.release();
    return record;
  }

  /** Takes the lane's head job out and lets the lane's next one run. */
  #remove(job: Job): void {
    const lane = this.#lanes.get(job.key)!;
    lane.shift();
    this.#size -= 1;
    this.options.stats.queued = this.#size;
    if (lane.length > 0) this.#ready.add(job.key);
    else this.#lanes.delete(job.key);
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
    this.options.stats.record(record, applicationsOf(notification));
    return record;
  }
}

/** The applications a notification is about (what decides who may see its delivery). */
function applicationsOf(notification: Notification): string[] {
  if (notification.kind === 'instance') return [notification.instance.name];
  if (notification.kind === 'group') return [...new Set(notification.items.map((item) => item.instance.name))];
  if (notification.kind === 'application') return [notification.application];
  return [...new Set(notification.instances.map((instance) => instance.name))];
}

const isReminder = (notification: Notification) => notification.kind === 'instance' && notification.reminder > 0;
const isPowerOfTwo = (count: number) => count > 0 && (count & (count - 1)) === 0;
