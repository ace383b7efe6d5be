import type { InstanceNotification } from '../../core/kits/notify-channel/index.js';
import type { Logger } from '../../core/plugin-api.js';

/** Instances a summary lists by name. */
export const SUMMARY_LIST = 50;

export interface StormTrackerOptions {
  /** `self-preservation-window`: how long after the return an instance still failing is told on its own. */
  readonly windowMs: number;
  /** `self-preservation` percent and `self-preservation-min`: follow-ups this many at once are still a storm. */
  readonly selfPreservation: number;
  readonly stormMin: number;
  /** The instance's status now, or undefined once it is gone (deregistered, removed). */
  readonly statusOf: (id: string) => string | undefined;
  /** Whether a change of the instance is still on its way through the pipeline (held, or in a batch): the registry is ahead of it. */
  readonly pending: (id: string) => boolean;
  /** Registered instances now. */
  readonly total: () => number;
  /** Instances the storm hid that still fail one window after the return: each is to be told on its own. */
  readonly followUp: (changes: readonly InstanceNotification[]) => void;
  /** Every instance of a storm that was not over with its `regained` summary has recovered or gone. */
  readonly recovered: (storm: { readonly count: number; readonly instances: readonly { id: string; name: string }[]; readonly channels: ReadonlySet<string> }) => void;
  readonly log: Logger;
}

interface Member {
  /** The latest change of the instance a summary stood for: sent as is when it is still the instance's status. */
  hidden: InstanceNotification;
  /** Told on its own since (a change sent alone or in a group, or a follow-up): never followed up again. */
  reported: boolean;
}

/**
 * What a storm summary hid (issue 28): a storm opens with a `lost` summary and lists its instances;
 * it is over only when every one of them is UP again or gone, so an incident opened for it is
 * resolved then and not before. When its instances come back, each one still failing one
 * `self-preservation-window` after the last of them came back is told on its own: an outage among
 * decoys is reported within seconds, not hidden behind "regained contact with 12 of 13". Follow-ups
 * that would themselves be a storm stay under it (contact is still lost with most).
 *
 * One storm at a time: a new loss while one is open widens it. Kept in memory, like the batch, and
 * read from the registry on every check, so a recovery the pipeline never saw (filtered, or handed
 * to another node) still counts. Its size is bounded by the registered instances.
 */
export class StormTracker {
  readonly #members = new Map<string, Member>();
  readonly #listed: { id: string; name: string }[] = [];
  readonly #channels = new Set<string>();
  #count = 0;
  #open = false;
  /** When the last of the storm's instances came back, while a follow-up is due. */
  #returnedAt: number | undefined;
  #timer: NodeJS.Timeout | undefined;
  #checkAt = Infinity;

  constructor(private readonly options: StormTrackerOptions) {}

  /** A `lost` summary told `channels` of these changes: their instances join the storm. Returns how many of its instances are not back. */
  lost(changes: readonly InstanceNotification[], channels: readonly string[]): number {
    for (const change of changes) {
      const { id, name } = change.instance;
      if (!this.#members.has(id)) {
        this.#count += 1;
        if (this.#listed.length < SUMMARY_LIST) this.#listed.push({ id, name });
      }
      this.#members.set(id, { hidden: change, reported: false });
    }
    for (const channel of channels) this.#channels.add(channel);
    this.#open = true;
    // Contact is lost again: a follow-up waits for the next return.
    this.#returnedAt = undefined;
    this.#schedule(Date.now() + this.options.windowMs);
    return this.#members.size;
  }

  /** A `regained` summary stood for these changes. Returns the storm's instances still failing: 0 when this summary ends it. */
  regained(changes: readonly InstanceNotification[]): number {
    if (!this.#open) return 0;
    for (const change of changes) {
      const member = this.#members.get(change.instance.id);
      if (!member) continue;
      member.hidden = change;
      this.#returned(Date.parse(change.timestamp));
    }
    this.#prune();
    if (this.#members.size === 0) {
      this.#close();
      return 0;
    }
    return this.#members.size;
  }

  /** Changes told on their own (alone or in a group): their instances need no follow-up. */
  dispatched(changes: readonly InstanceNotification[]): void {
    if (!this.#open) return;
    for (const change of changes) {
      const member = this.#members.get(change.instance.id);
      if (!member || member.reported) continue;
      member.reported = true;
      if (change.from === 'OFFLINE' && change.to !== 'OFFLINE') this.#returned(Date.parse(change.timestamp));
    }
  }

  /** Whether a storm is open: contact is lost with most instances, or not all of them are back. */
  get open(): boolean {
    return this.#open;
  }

  stop(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#open = false;
  }

  #returned(at: number): void {
    const when = Number.isNaN(at) ? Date.now() : at;
    this.#returnedAt = Math.max(this.#returnedAt ?? when, when);
    this.#schedule(this.#returnedAt + this.options.windowMs);
  }

  /**
   * Drops the instances UP again or gone; true if one came back UP. An instance with a change still
   * in the pipeline stays: its change will say so (a "regained" summary on its way must still be
   * the one that ends the storm).
   */
  #prune(): boolean {
    let back = false;
    for (const id of this.#members.keys()) {
      const status = this.options.statusOf(id);
      if ((status !== undefined && status !== 'UP') || this.options.pending(id)) continue;
      this.#members.delete(id);
      back ||= status === 'UP';
    }
    return back;
  }

  #check(): void {
    if (!this.#open) return;
    const now = Date.now();
    // A recovery the pipeline did not see (filtered, or handed to another node) is a return too.
    if (this.#prune() && this.#returnedAt === undefined) this.#returnedAt = now;
    if (this.#members.size === 0) {
      const storm = { count: this.#count, instances: [...this.#listed], channels: new Set(this.#channels) };
      this.#close();
      this.options.log.info(`self-preservation: the ${storm.count} instances Vigil lost contact with are all back or deregistered; the storm is over`);
      this.options.recovered(storm);
      return;
    }
    if (this.#returnedAt !== undefined && now >= this.#returnedAt + this.options.windowMs) {
      this.#returnedAt = undefined;
      this.#followUp();
    }
    this.#schedule(this.#returnedAt !== undefined ? this.#returnedAt + this.options.windowMs : now + this.options.windowMs);
  }

  #followUp(): void {
    // An instance whose status moved on has a newer change that is told by itself.
    const due = [...this.#members.values()].filter(({ hidden, reported }) => !reported
      && this.options.statusOf(hidden.instance.id) === hidden.to && !this.options.pending(hidden.instance.id));
    if (due.length === 0) return;
    const total = this.options.total();
    if (due.length >= this.options.stormMin && due.length * 100 > this.options.selfPreservation * total) {
      this.options.log.warn(`self-preservation: ${due.length} of ${total} instances still not back one window after the others: still a storm, no message each`);
      return;
    }
    for (const member of due) member.reported = true;
    this.options.log.warn(`self-preservation: ${due.length} instance(s) the storm stood for still failing one window after the others came back: told on their own`);
    this.options.followUp(due.map((member) => member.hidden));
  }

  #schedule(at: number): void {
    if (this.#timer && at >= this.#checkAt) return;
    clearTimeout(this.#timer);
    this.#checkAt = at;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#checkAt = Infinity;
      this.#check();
    }, Math.max(0, at - Date.now()));
  }

  #close(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#checkAt = Infinity;
    this.#open = false;
    this.#members.clear();
    this.#listed.length = 0;
    this.#channels.clear();
    this.#count = 0;
    this.#returnedAt = undefined;
  }
}
