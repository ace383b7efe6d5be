import { createHash } from 'node:crypto';
import type { Leases, Logger, Registry, SharedMap, SharedState } from '../../../core/plugin-api.js';
import { globMatcher, severity, type ExpectationStatus, type Instance } from '../../../core/domain/index.js';
import type { ApplicationNotification } from '../../../core/kits/notify-channel/index.js';
import type { ExpectationConfig } from './config.js';

/** What is kept of an application that is short of its expectation (map `notify.expectations`, keyed by name). */
interface Shortfall {
  /** Since when fewer than `min-up` instances are UP (ms since the epoch). */
  readonly belowSince: number;
  /** APPLICATION_DEGRADED went out for this shortfall. */
  readonly degraded: boolean;
  /** Since when no instance is registered (ms), or null while some are. */
  readonly goneSince: number | null;
  /** A verdict was due but held back (a maintenance window over the application, or a storm): counted once. */
  readonly withheld: boolean;
}

/** One application as `GET /notifications` shows it under `expectations`. */
export type ExpectationView = ExpectationStatus;

export interface EvaluatorOptions {
  readonly registry: Registry;
  readonly state: () => SharedState;
  readonly leases: () => Leases;
  /** `notify.expectations` and `notify.expectations-forget-after` as they are now. */
  readonly expectations: () => readonly ExpectationConfig[];
  readonly forgetAfter: () => number;
  /** Whether a maintenance window over the whole application runs now; its verdicts wait for the end. */
  readonly inMaintenance: (application: string, at: number) => Promise<boolean>;
  /** Whether contact is lost with most instances (a storm): no application is judged degraded on its own then. */
  readonly stormOpen: () => boolean;
  readonly announce: (notification: ApplicationNotification) => Promise<void>;
  /** Counts a verdict a window held back (the `in-maintenance` counter). */
  readonly heldBack: () => void;
  readonly baseUrl: () => string;
  readonly log: Logger;
  readonly now: () => number;
}

interface Compiled {
  readonly config: ExpectationConfig;
  readonly matches: (name: string) => boolean;
}

/** Instances listed in a notification at most. */
const LISTED = 50;
/** Applications remembered between two rounds as having lost an instance (a mass deregistration is bounded). */
const MAX_DEPARTED = 10_000;
const LEASE = 'notify-expectations';

/**
 * Fleet expectations, judged per application on the node holding the lease
 * `notify-expectations`, one `tick` at a time. An application matching an expectation (the first
 * whose globs match its name) with fewer than `min-up` instances UP for `for` is announced once as
 * `APPLICATION_DEGRADED`, and as `APPLICATION_RECOVERED` once enough are UP again. An application
 * whose last instance left counts as 0 UP ("orders has disappeared") until
 * `expectations-forget-after`, when it is no longer expected (a RECOVERED with `forgotten`, so an
 * incident opened for it is closed). Only shortfalls are kept, in `SHARED_STATE`, so another node
 * carries on where this one stopped. That an application was there is known from the last round
 * and from each deregistration, which every node hears of (`departed`); an application whose last
 * instance left while no node held the lease is not missed by the next holder only if it was short
 * already (kept).
 */
export class ExpectationEvaluator {
  #compiled: { readonly source: readonly ExpectationConfig[]; readonly list: readonly Compiled[] } | undefined;
  /** Applications matching an expectation that had instances at the last round, or undefined before the first round as lease holder. */
  #present: Set<string> | undefined;
  /** No expectation is configured and none is kept: a round reads nothing until the config brings some. */
  #idle = false;
  /** Applications an instance of which deregistered since the last round: looked at even if no round saw them with instances. */
  #departed = new Set<string>();

  constructor(private readonly options: EvaluatorOptions) {}

  #map(): SharedMap {
    return this.options.state().map('notify.expectations');
  }

  #expectations(): readonly Compiled[] {
    const source = this.options.expectations();
    if (this.#compiled?.source !== source) {
      this.#compiled = { source, list: source.map((config) => ({ config, matches: globMatcher(config.applications) })) };
    }
    return this.#compiled.list;
  }

  #expectationOf(name: string): ExpectationConfig | undefined {
    return this.#expectations().find((expectation) => expectation.matches(name))?.config;
  }

  /** An instance of `application` deregistered (every node hears of it): if it was the last one, the next round notices. */
  departed(application: string): void {
    if (this.#departed.size < MAX_DEPARTED && this.#expectationOf(application)) this.#departed.add(application);
  }

  async tick(): Promise<void> {
    const departed = this.#departed;
    this.#departed = new Set();
    if (!this.options.leases().lease(LEASE).held) {
      this.#present = undefined;
      return;
    }
    const expectations = this.#expectations();
    if (expectations.length === 0 && this.#idle) return;
    const map = this.#map();
    const kept = new Map<string, Shortfall>();
    for (const [name, value] of await map.entries()) {
      const shortfall = parse(value);
      if (shortfall) kept.set(name, shortfall);
    }
    this.#idle = expectations.length === 0 && kept.size === 0;
    if (this.#idle) return;
    const now = this.options.now();
    const byApplication = this.#registered();
    const present = new Set<string>();
    const names = new Set<string>(kept.keys());
    for (const name of byApplication.keys()) {
      if (!this.#expectationOf(name)) continue;
      present.add(name);
      names.add(name);
    }
    // Present at the last round, or one of its instances left since: its last instance may have gone.
    for (const name of this.#present ?? []) names.add(name);
    for (const name of departed) names.add(name);
    for (const name of names) {
      const before = kept.get(name);
      const after = await this.#judge(name, byApplication.get(name) ?? [], before, now);
      if (after === undefined) {
        if (before) await map.delete(name);
      } else if (JSON.stringify(after) !== JSON.stringify(before)) {
        await map.set(name, JSON.stringify(after));
      }
    }
    this.#present = present;
  }

  /** The application's shortfall after this round (undefined: none), announcing what changed. */
  async #judge(name: string, instances: readonly Instance[], before: Shortfall | undefined, now: number): Promise<Shortfall | undefined> {
    const expectation = this.#expectationOf(name);
    if (!expectation) {
      // The config changed: an incident opened for the application must not stay open for ever.
      if (before?.degraded) {
        this.options.log.info(`${oneLine(name)} no longer matches any notify.expectations entry: no longer expected`);
        await this.options.announce(this.#notification('APPLICATION_RECOVERED', name, instances, 0, before, now, true));
      }
      return undefined;
    }
    const required = expectation['min-up'];
    const up = instances.filter((instance) => instance.statusInfo.status === 'UP').length;
    if (instances.length > 0 && up >= required) {
      if (!before?.degraded) return undefined;
      if (await this.options.inMaintenance(name, now)) return this.#withhold(before, true);
      await this.options.announce(this.#notification('APPLICATION_RECOVERED', name, instances, required, before, now, false));
      return undefined;
    }
    const goneSince = instances.length > 0 ? null : before?.goneSince ?? now;
    const shortfall: Shortfall = { belowSince: before?.belowSince ?? now, degraded: before?.degraded ?? false, goneSince, withheld: before?.withheld ?? false };
    if (goneSince !== null && now - goneSince >= this.options.forgetAfter()) {
      this.options.log.info(`${oneLine(name)} has had no instance since ${new Date(goneSince).toISOString()}: no longer expected (notify.expectations-forget-after)`);
      if (shortfall.degraded) await this.options.announce(this.#notification('APPLICATION_RECOVERED', name, instances, required, shortfall, now, true));
      return undefined;
    }
    if (shortfall.degraded || now - shortfall.belowSince < expectation.for) return shortfall;
    const maintenance = await this.options.inMaintenance(name, now);
    if (maintenance || this.options.stormOpen()) return this.#withhold(shortfall, maintenance);
    await this.options.announce(this.#notification('APPLICATION_DEGRADED', name, instances, required, shortfall, now, false));
    return { ...shortfall, degraded: true, withheld: false };
  }

  #withhold(shortfall: Shortfall, maintenance: boolean): Shortfall {
    if (!shortfall.withheld && maintenance) this.options.heldBack();
    return { ...shortfall, withheld: true };
  }

  #notification(type: ApplicationNotification['type'], name: string, instances: readonly Instance[], required: number, shortfall: Shortfall, now: number, forgotten: boolean): ApplicationNotification {
    const listed = [...instances].sort((a, b) => severity(a.statusInfo.status) - severity(b.statusInfo.status) || a.id.localeCompare(b.id)).slice(0, LISTED);
    const since = type === 'APPLICATION_DEGRADED' ? shortfall.belowSince : forgotten ? shortfall.goneSince ?? now : now;
    return {
      kind: 'application',
      id: `application-${createHash('sha1').update(name).digest('hex').slice(0, 12)}-${shortfall.belowSince}-${type === 'APPLICATION_DEGRADED' ? 'degraded' : 'recovered'}`,
      type,
      application: name,
      up: instances.filter((instance) => instance.statusInfo.status === 'UP').length,
      required,
      total: instances.length,
      instances: listed.map((instance) => ({ id: instance.id, status: instance.statusInfo.status })),
      disappeared: instances.length === 0,
      forgotten,
      since: new Date(since).toISOString(),
      timestamp: new Date(now).toISOString(),
      baseUrl: this.options.baseUrl(),
    };
  }

  /** Each application matching an expectation (with instances, or short of it), as `GET /notifications` shows it. */
  async view(): Promise<ExpectationView[]> {
    if (this.#expectations().length === 0) return [];
    const byApplication = this.#registered();
    const kept = new Map<string, Shortfall>();
    for (const [name, value] of await this.#map().entries()) {
      const shortfall = parse(value);
      if (shortfall) kept.set(name, shortfall);
    }
    const views: ExpectationView[] = [];
    for (const name of new Set([...byApplication.keys(), ...kept.keys()])) {
      const expectation = this.#expectationOf(name);
      if (!expectation) continue;
      const instances = byApplication.get(name) ?? [];
      const shortfall = kept.get(name);
      const up = instances.filter((instance) => instance.statusInfo.status === 'UP').length;
      const state = !shortfall ? 'ok' : instances.length === 0 ? 'disappeared' : shortfall.degraded ? 'degraded' : 'below';
      views.push({
        application: name, minUp: expectation['min-up'], for: expectation.for, up, total: instances.length, state,
        since: shortfall ? new Date(shortfall.belowSince).toISOString() : null,
      });
    }
    return views.sort((a, b) => a.application.localeCompare(b.application));
  }

  /** Registered instances by application name. */
  #registered(): Map<string, Instance[]> {
    const byApplication = new Map<string, Instance[]>();
    for (const instance of this.options.registry.list()) {
      const name = instance.registration?.name;
      if (name === undefined) continue;
      const list = byApplication.get(name);
      if (list) list.push(instance);
      else byApplication.set(name, [instance]);
    }
    return byApplication;
  }
}

const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]+/g, ' ').slice(0, 200);

function parse(value: string): Shortfall | undefined {
  try {
    const shortfall = JSON.parse(value) as Shortfall;
    return typeof shortfall === 'object' && shortfall !== null && typeof shortfall.belowSince === 'number' ? shortfall : undefined;
  } catch {
    return undefined;
  }
}
