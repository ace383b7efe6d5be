import type { Leases, Logger, Registry, SharedMap, SharedState } from '../../../core/plugin-api.js';
import { messageOf, type Instance } from '../../../core/domain/index.js';
import type { Attempt, DeliveryTools, MaintenanceHook, MaintenanceWindowFacts } from '../../../core/kits/notify-channel/index.js';
import { sameNotifiedStatus } from '../status-class.js';
import { statusBefore } from './baseline.js';
import type { MaintenanceStore } from './store.js';
import { Scope, type ActiveWindow } from './window.js';

/** What is kept of a window while it runs (map `notify.maintenance.open`, keyed by `facts.key`), so another node can end it. */
interface OpenWindow {
  readonly facts: MaintenanceWindowFacts;
  /** Each instance in the window when it began, with its status then. */
  readonly baseline: Record<string, string>;
  /** Channels whose `maintenance` hook took the start (and so must hear of the end). */
  readonly told: string[];
  /** The end-of-window report is made: never twice. */
  readonly reported: boolean;
}

/** An instance whose status at a window's end differs from the one before it. */
export interface ChangeAfterMaintenance {
  readonly instance: Instance;
  readonly from: string;
  readonly to: string;
  /** The version of the instance's last event before the end, and when its status last moved before it. */
  readonly version: number;
  readonly timestamp: string;
}

/** A channel that wants to hear of windows, with what it delivers through. */
export interface HookedChannel {
  readonly name: string;
  readonly hook: () => MaintenanceHook | undefined;
  readonly enabled: () => boolean;
  readonly tools: DeliveryTools;
}

export interface TrackerOptions {
  readonly store: MaintenanceStore;
  readonly registry: Registry;
  readonly state: () => SharedState;
  readonly leases: () => Leases;
  readonly channels: readonly HookedChannel[];
  /** Sends the end-of-window changes (the pipeline, filters and channel rules still apply). */
  readonly report: (changes: readonly ChangeAfterMaintenance[], window: MaintenanceWindowFacts) => Promise<void>;
  readonly log: Logger;
  readonly now: () => number;
}

/** A hook's call that did not go through is tried again after 2, 4, 8 … s, at most a minute apart, at most this many times. */
const MAX_HOOK_ATTEMPTS = 12;
const LEASE = 'notify-maintenance';

/**
 * The beginning and end of maintenance windows, on the node holding the lease
 * `notify-maintenance`, one `tick` at a time. When a window begins it records the status each of
 * its instances had at its start; when it ends (ran out, deleted, or gone from the config) each
 * instance whose status at its end differs from that is reported once, as one change from the
 * status before the window, so an outage the work left behind is never hidden. Both are read from
 * the recorded history as of the window's edges (`[start, end)`, as the pipeline holds changes
 * back), not as things are when a round gets to it: a change from the end on is notified on its
 * own, never also by the report. An instance still in another window at the end hands its
 * "before" on to that one (the earlier start's) and is reported when the last of them ends.
 * Channels with a `maintenance` hook (Alertmanager) hear of both ends. Everything a node needs to
 * carry on is in `SHARED_STATE`.
 */
export class MaintenanceTracker {
  /** When each hook call may be tried again, and how many attempts it had (in memory: a new node simply tries again). */
  readonly #attempts = new Map<string, { readonly at: number; readonly count: number }>();

  constructor(private readonly options: TrackerOptions) {}

  #open(): SharedMap {
    return this.options.state().map('notify.maintenance.open');
  }

  /** One round: opens windows that began, ends those that are over, retries hooks that failed. */
  async tick(): Promise<void> {
    if (!this.options.leases().lease(LEASE).held) return;
    const now = this.options.now();
    const active = await this.options.store.activeAt(now);
    const open = new Map<string, OpenWindow>();
    for (const [key, value] of await this.#open().entries()) {
      const record = parse(value);
      if (record) open.set(key, record);
    }
    for (const window of active) {
      if (open.has(window.facts.key)) continue;
      const record = await this.#begin(window);
      await this.#open().set(window.facts.key, JSON.stringify(record));
      open.set(window.facts.key, record);
    }
    const running = new Set(active.map((window) => window.facts.key));
    const over = [...open.values()].filter((record) => !running.has(record.facts.key));
    if (over.length > 0) {
      // When each window that is over ended, and in that order: one ending hands on to one still running then.
      const ends = await this.#endsOf(over, now);
      const ended = [...ends].sort(([a, aEnd], [b, bEnd]) => aEnd - bEnd || a.localeCompare(b));
      for (const [key, end] of ended) await this.#end(open.get(key)!, end, ends, open, now);
    }
    for (const window of active) {
      const record = open.get(window.facts.key);
      if (record) await this.#tellStart(record, now);
    }
  }

  async #begin(window: ActiveWindow): Promise<OpenWindow> {
    const start = Date.parse(window.facts.start);
    const baseline: Record<string, string> = {};
    for (const instance of this.options.registry.list()) {
      if (!instance.registration || !window.scope.covers(instance.id, instance.registration.name)) continue;
      // The whole history: a cluster node holds only the newest events of the instances it does not check.
      baseline[instance.id] = statusBefore(instance, await this.options.registry.readEventsOf(instance.id), start).status;
    }
    const { facts } = window;
    const count = Object.keys(baseline).length;
    this.options.log.info(`maintenance ${facts.id} began (until ${facts.end}): notifications of ${count} instance${count === 1 ? '' : 's'} held back${scopeText(facts)}`);
    return { facts, baseline, told: [], reported: false };
  }

  /**
   * When each window that is over ended: its planned end (`facts.end`, as it was when it began),
   * or when it was deleted (the store keeps that a while), or, for one gone from the config or no
   * longer kept, at the latest now, when it is found gone.
   */
  async #endsOf(over: readonly OpenWindow[], now: number): Promise<Map<string, number>> {
    const stored = over.some((record) => !record.reported) ? await this.options.store.ends() : new Map<string, number>();
    return new Map(over.map((record) => [record.facts.key, Math.min(Date.parse(record.facts.end), stored.get(record.facts.key) ?? now)]));
  }

  /** Reports what changed in the window until `end`, then tells the hooked channels it ended; forgets it once they all took it. */
  async #end(record: OpenWindow, end: number, ends: ReadonlyMap<string, number>, open: Map<string, OpenWindow>, now: number): Promise<void> {
    const { facts } = record;
    let current = record;
    if (!record.reported) {
      const changes = await this.#handOnOrCollect(record, end, ends, open);
      if (changes.length > 0) await this.options.report(changes, facts);
      current = { ...record, reported: true };
      open.set(facts.key, current);
      await this.#open().set(facts.key, JSON.stringify(current));
      this.options.log.info(`maintenance ${facts.id} ended: ${changes.length} instance${changes.length === 1 ? '' : 's'} changed status during it${changes.length > 0 ? ' (notified once, as changes from before the window)' : ''}`);
    }
    const early = now < Date.parse(facts.end);
    // Channels still to hear of the end (a call that did not go through yet).
    const waiting: string[] = [];
    for (const name of current.told) {
      const channel = this.options.channels.find((candidate) => candidate.name === name);
      const hook = channel?.hook();
      if (channel && hook && !(await this.#attempt(channel, facts, 'end', now, () => hook.ended(facts, channel.tools, early)))) waiting.push(name);
    }
    if (waiting.length === 0) await this.#open().delete(facts.key);
    else if (waiting.length !== current.told.length) await this.#open().set(facts.key, JSON.stringify({ ...current, told: waiting }));
  }

  /**
   * The instances of a window that ended at `end` whose status then differs from the one before
   * it: read as of `end` (changes from `end` on are notified on their own), however late this
   * runs. Each instance still in another window at `end` (running, or ending later in this round:
   * `ends`) hands its status before this one on to it instead (when this one began earlier).
   */
  async #handOnOrCollect(record: OpenWindow, end: number, ends: ReadonlyMap<string, number>, open: Map<string, OpenWindow>): Promise<ChangeAfterMaintenance[]> {
    const { registry } = this.options;
    const scope = new Scope(record.facts.applications, record.facts.instances);
    const ids = new Set(Object.keys(record.baseline));
    for (const instance of registry.list()) if (instance.registration && scope.covers(instance.id, instance.registration.name)) ids.add(instance.id);
    // The windows that were running at `end` and are not reported yet: those an instance may be handed on to.
    const others: Array<{ readonly key: string; readonly scope: Scope }> = [];
    for (const [key, other] of open) {
      if (key === record.facts.key || other.reported || Date.parse(other.facts.start) > end || (ends.get(key) ?? Infinity) < end) continue;
      others.push({ key, scope: new Scope(other.facts.applications, other.facts.instances) });
    }
    const changes: ChangeAfterMaintenance[] = [];
    const handedOn = new Map<string, OpenWindow>();
    const start = Date.parse(record.facts.start);
    for (const id of ids) {
      const instance = registry.get(id);
      if (!instance?.registered || !instance.registration) continue;
      const atEnd = statusBefore(instance, await registry.readEventsOf(id), end);
      // Deregistered during the window (and not back by its end), or registered after it: nothing of it is this window's.
      if (!atEnd.registered) continue;
      // Registered during the window: it was UNKNOWN before, as every new instance is.
      const before = record.baseline[id] ?? 'UNKNOWN';
      const still = others.find((other) => other.scope.covers(id, instance.registration!.name));
      if (still) {
        const next = handedOn.get(still.key) ?? open.get(still.key)!;
        if (start < Date.parse(next.facts.start) || !(id in next.baseline)) {
          handedOn.set(still.key, { ...next, baseline: { ...next.baseline, [id]: before } });
        }
        continue;
      }
      if (!sameNotifiedStatus(before, atEnd.status)) changes.push({ instance, from: before, to: atEnd.status, version: atEnd.version, timestamp: atEnd.timestamp });
    }
    for (const [key, next] of handedOn) {
      open.set(key, next);
      await this.#open().set(key, JSON.stringify(next));
    }
    return changes;
  }

  /** Whether the window `key` (an `ActiveWindow`'s `facts.key`) began and its end report is not made yet. Read fresh. */
  async reportPending(key: string): Promise<boolean> {
    const value = await this.#open().get(key);
    const record = value === undefined ? undefined : parse(value);
    return record !== undefined && !record.reported;
  }

  async #tellStart(record: OpenWindow, now: number): Promise<void> {
    const told = [...record.told];
    for (const channel of this.options.channels) {
      const hook = channel.hook();
      if (!hook || !channel.enabled() || told.includes(channel.name)) continue;
      if (await this.#attempt(channel, record.facts, 'start', now, () => hook.started(record.facts, channel.tools))) told.push(channel.name);
    }
    if (told.length !== record.told.length) await this.#open().set(record.facts.key, JSON.stringify({ ...record, told }));
  }

  /**
   * One hook call when it is due; true once it is settled (went through, failed for good, or
   * tried `MAX_HOOK_ATTEMPTS` times), false while it is to be tried again.
   */
  async #attempt(channel: HookedChannel, facts: MaintenanceWindowFacts, phase: 'start' | 'end', now: number, call: () => Promise<Attempt>): Promise<boolean> {
    const key = `${channel.name} ${phase} ${facts.key}`;
    const previous = this.#attempts.get(key);
    if (previous && now < previous.at) return false;
    const result = await call().catch((error: unknown): Attempt => ({ outcome: 'retry', reason: messageOf(error) }));
    const count = (previous?.count ?? 0) + 1;
    if (result.outcome === 'retry' && count < MAX_HOOK_ATTEMPTS) {
      this.#attempts.set(key, { at: now + Math.min(60_000, 1000 * 2 ** count), count });
      if (count === 1) channel.tools.log.warn(`maintenance ${facts.id}: telling the ${phase} of the window did not go through (${result.reason}); trying again`);
      return false;
    }
    this.#attempts.delete(key);
    if (result.outcome !== 'delivered') channel.tools.log.error(`maintenance ${facts.id}: gave up telling the ${phase} of the window: ${result.reason}`);
    return true;
  }
}

/** A few of the window's applications and instances, for a log line (a window may list a thousand). */
function scopeText(facts: MaintenanceWindowFacts): string {
  const some = (list: readonly string[]) => `${list.slice(0, 5).map((item) => item.slice(0, 100)).join(', ')}${list.length > 5 ? ` and ${list.length - 5} more` : ''}`;
  const parts = [
    ...(facts.applications.length > 0 ? [`applications ${some(facts.applications)}`] : []),
    ...(facts.instances.length > 0 ? [`instances ${some(facts.instances)}`] : []),
  ];
  return ` (${parts.join('; ')})`;
}

function parse(value: string): OpenWindow | undefined {
  try {
    const record = JSON.parse(value) as OpenWindow;
    return typeof record === 'object' && record !== null && typeof record.facts?.key === 'string' && typeof record.baseline === 'object' ? record : undefined;
  } catch {
    return undefined;
  }
}
