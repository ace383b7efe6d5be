import { globMatcher, type MaintenanceWindow } from '../../../core/domain/index.js';
import type { MaintenanceWindowFacts } from '../../../core/kits/notify-channel/index.js';
import type { RecurringWindowConfig } from './config.js';
import { Schedule, type Occurrence } from './recurring.js';

/** What a maintenance window covers: applications by glob, instances by id (an instance matching either is in it). */
export class Scope {
  readonly #application: (name: string) => boolean;
  readonly #instances: ReadonlySet<string>;

  constructor(readonly applications: readonly string[], readonly instances: readonly string[]) {
    this.#application = globMatcher(applications);
    this.#instances = new Set(instances);
  }

  covers(instanceId: string, application: string): boolean {
    return this.#instances.has(instanceId) || this.#application(application);
  }

  /** Whether the application as a whole is in it (what its expectations follow): by name, not by listed instances. */
  coversApplication(application: string): boolean {
    return this.#application(application);
  }
}

/** A window made through the API, as kept in `SHARED_STATE` (map `notify.maintenance`, keyed by its id). */
export interface StoredWindow {
  readonly applications: string[];
  readonly instances: string[];
  /** ISO-8601 instants. */
  readonly start: string;
  readonly end: string;
  readonly reason: string;
  readonly createdBy: string;
  readonly created: string;
  /** Deleted while it ran: `end` is when. Kept a while so changes still on their way stay held. */
  readonly endedEarly?: boolean;
}

/** A window as `GET /maintenance` shows it: the domain's wire type. */
export type WindowView = MaintenanceWindow;

/** A window made through the API, read back: its scope compiled, its times in ms. */
export class ApiWindow {
  readonly scope: Scope;
  readonly start: number;
  readonly end: number;

  constructor(readonly id: string, readonly stored: StoredWindow) {
    this.scope = new Scope(stored.applications, stored.instances);
    this.start = Date.parse(stored.start);
    this.end = Date.parse(stored.end);
  }

  activeAt(at: number): boolean {
    return this.start <= at && at < this.end;
  }

  facts(): MaintenanceWindowFacts {
    const { stored } = this;
    return {
      key: this.id, id: this.id, applications: stored.applications, instances: stored.instances,
      start: stored.start, end: stored.end, reason: stored.reason, createdBy: stored.createdBy,
    };
  }

  view(now: number): WindowView {
    const { stored } = this;
    return {
      id: this.id, applications: stored.applications, instances: stored.instances, start: stored.start, end: stored.end,
      active: this.activeAt(now), reason: stored.reason, createdBy: stored.createdBy, recurring: false,
    };
  }
}

/** A window of `notify.maintenance`: its schedule and scope compiled once per config. */
export class RecurringWindow {
  readonly scope: Scope;
  readonly schedule: Schedule;
  /** The last occurrence asked for and how long the answer holds, so a burst of changes asks croner once. */
  #memo: { readonly from: number; readonly until: number; readonly occurrence: Occurrence | undefined } | undefined;

  constructor(readonly config: RecurringWindowConfig) {
    this.scope = new Scope(config.applications, config.instances);
    this.schedule = new Schedule(config.schedule, config.timezone, config.duration);
  }

  /** The occurrence running at `at` (the oldest when several overlap), or undefined. */
  at(at: number): Occurrence | undefined {
    const memo = this.#memo;
    if (memo && at >= memo.from && at < memo.until) return memo.occurrence;
    const occurrence = this.schedule.at(at);
    if (occurrence) {
      // An older occurrence may still run before `at`, none after it: the answer holds from `at` to this one's end.
      this.#memo = { from: at, until: occurrence.end, occurrence };
    } else {
      this.#memo = { from: at, until: this.schedule.next(at)?.start ?? Infinity, occurrence: undefined };
    }
    return occurrence;
  }

  facts(occurrence: Occurrence): MaintenanceWindowFacts {
    const { config } = this;
    const start = new Date(occurrence.start).toISOString();
    return {
      key: `${config.name}@${start}`, id: config.name, applications: config.applications, instances: config.instances,
      start, end: new Date(occurrence.end).toISOString(), reason: config.reason, createdBy: 'config',
    };
  }

  /** The occurrence running at `now`, else the next one; undefined when the schedule never runs again. */
  view(now: number): WindowView | undefined {
    const { config } = this;
    const current = this.at(now);
    const shown = current ?? this.schedule.next(now);
    if (!shown) return undefined;
    return {
      id: config.name, applications: config.applications, instances: config.instances,
      start: new Date(shown.start).toISOString(), end: new Date(shown.end).toISOString(), active: current !== undefined,
      reason: config.reason, createdBy: 'config', recurring: true, schedule: config.schedule, timezone: config.timezone, duration: config.duration,
    };
  }
}

/** An occurrence of either kind running at some instant: what the pipeline and the tracker work with. */
export interface ActiveWindow {
  readonly facts: MaintenanceWindowFacts;
  readonly scope: Scope;
}
