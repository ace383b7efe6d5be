import type { InstanceNotification } from '../../core/kits/notify-channel/index.js';
import type { Completion } from './completion.js';

/** A change on its way to the channels, and the outbox item's completion it belongs to. */
export interface Entry {
  readonly notification: InstanceNotification;
  readonly completion: Completion;
}

export interface BatcherOptions {
  /** `group-window`: 0 sends each change on its own. */
  readonly groupWindowMs: number;
  /** `self-preservation` percent; 0 is off. */
  readonly selfPreservation: number;
  readonly stormWindowMs: number;
  readonly stormMin: number;
  /** Registered instances now. */
  readonly total: () => number;
  /** Hands changes to the channels: each on its own, or (grouped) as one message per channel. */
  readonly dispatch: (entries: readonly Entry[], grouped: boolean) => void;
  /** One summary instead of `entries`. */
  readonly summarize: (direction: 'lost' | 'regained', entries: readonly Entry[], total: number) => void;
}

interface Batch {
  readonly opened: number;
  deadline: number;
  timer: NodeJS.Timeout;
  readonly entries: Entry[];
  readonly instances: Set<string>;
}

/**
 * Storm control and grouping. Without either, a change goes straight on. With `group-window`,
 * the first change opens a batch and everything until the window closes goes out together. With
 * self-preservation on, a change to or from OFFLINE waits in a batch for one status interval
 * (`self-preservation-window`): when more than the given percent of all instances (and at least
 * `self-preservation-min`) went OFFLINE in it, one summary replaces their messages; the same for
 * recoveries from OFFLINE. Once an instance has a change in the batch, its next changes join it,
 * so they keep their order.
 */
export class Batcher {
  #batch: Batch | undefined;
  #counted = { at: 0, total: 0 };

  constructor(private readonly options: BatcherOptions) {}

  add(entry: Entry): void {
    const { notification } = entry;
    // With fewer instances than `self-preservation-min` no storm is possible: nothing waits.
    const storm = this.options.selfPreservation > 0 && notification.type === 'STATUS_CHANGED'
      && (notification.to === 'OFFLINE' || notification.from === 'OFFLINE') && this.#total() >= this.options.stormMin;
    const grouping = this.options.groupWindowMs > 0;
    const batch = this.#batch;
    if (!storm && !grouping && !batch?.instances.has(notification.instance.id)) {
      this.options.dispatch([entry], false);
      return;
    }
    const open = batch ?? this.#open();
    // Held until the batch is handed on: its outbox item must stay pending (for another node, if this one dies) meanwhile.
    entry.completion.hold();
    open.entries.push(entry);
    open.instances.add(notification.instance.id);
    if (storm) this.#extend(open, open.opened + this.options.stormWindowMs);
  }

  /** Whether a change of the instance waits in the open batch. */
  holds(id: string): boolean {
    return this.#batch?.instances.has(id) ?? false;
  }

  /** The registered instances, counted at most once a second: a storm of 20,000 changes must not list 20,000 instances each time. */
  #total(): number {
    const now = Date.now();
    if (now - this.#counted.at > 1000) this.#counted = { at: now, total: this.options.total() };
    return this.#counted.total;
  }

  /** Forgets what is batched: a durable outbox keeps those items pending for the next node. */
  stop(): void {
    if (this.#batch) clearTimeout(this.#batch.timer);
    this.#batch = undefined;
  }

  #open(): Batch {
    const opened = Date.now();
    const deadline = opened + this.options.groupWindowMs;
    const batch: Batch = { opened, deadline, timer: this.#timer(deadline - opened), entries: [], instances: new Set() };
    this.#batch = batch;
    return batch;
  }

  #extend(batch: Batch, deadline: number): void {
    if (deadline <= batch.deadline) return;
    clearTimeout(batch.timer);
    batch.deadline = deadline;
    batch.timer = this.#timer(deadline - Date.now());
  }

  #timer(ms: number): NodeJS.Timeout {
    return setTimeout(() => this.#flush(), Math.max(0, ms));
  }

  #flush(): void {
    const batch = this.#batch;
    this.#batch = undefined;
    if (!batch) return;
    this.#handOn(batch.entries);
    // Each channel holds what it took: the batch's own hold ends.
    for (const entry of batch.entries) entry.completion.release();
  }

  #handOn(batched: readonly Entry[]): void {
    let entries = batched;
    if (this.options.selfPreservation > 0) {
      const total = this.options.total();
      const isStorm = (list: readonly Entry[]) => {
        const count = new Set(list.map((entry) => entry.notification.instance.id)).size;
        return count >= this.options.stormMin && count * 100 > this.options.selfPreservation * total;
      };
      const lost = entries.filter((entry) => entry.notification.type === 'STATUS_CHANGED' && entry.notification.to === 'OFFLINE');
      const regained = entries.filter((entry) => entry.notification.type === 'STATUS_CHANGED' && entry.notification.from === 'OFFLINE'
        && entry.notification.to !== 'OFFLINE');
      for (const [direction, list] of [['lost', lost], ['regained', regained]] as const) {
        if (!isStorm(list)) continue;
        this.options.summarize(direction, list, total);
        const summarized = new Set(list);
        entries = entries.filter((entry) => !summarized.has(entry));
      }
    }
    if (entries.length === 0) return;
    if (this.options.groupWindowMs > 0) this.options.dispatch(entries, true);
    else for (const entry of entries) this.options.dispatch([entry], false);
  }
}
