import type { EventDraft, EventHeader, Instance } from '../store/types.js';

/**
 * The JSON bodies of Vigil's own API, declared once: the plugins that send them type their answers
 * with these, and the dashboard reads them with the same types, so a change to either side that
 * the other does not follow fails to compile. (Instances themselves travel as `Instance`.)
 */

/** An event as the API sends it: the store's `seq` travels as the SSE `id:`, not in the body. */
export type WireEvent = Omit<EventHeader, 'seq'> & EventDraft;

/** An application as `GET /applications` sends it. */
export interface WireApplication {
  readonly name: string;
  readonly buildVersion: string | null;
  readonly status: string;
  readonly statusTimestamp: string;
  readonly instances: readonly Instance[];
}

/** What this daemon runs (`settings.about()`, the dashboard's About page). */
export interface DaemonAbout {
  /** Vigil's own version. */
  readonly version: string;
  /** In `plugins:` order: each plugin's name, declared version (null when it declares none), where it came from, and its entry as written. */
  readonly plugins: readonly { readonly name: string; readonly version: string | null; readonly source: 'builtin' | 'path' | 'package'; readonly entry: string }[];
  /**
   * The effective config: kernel keys with their defaults, `plugins`, and each loaded plugin's
   * validated section (durations in ms). Values under keys that name a secret (`password`,
   * `token`, `*-key`, `secret`, `*-hash`, webhook URLs, `headers`), URL passwords, and the paths
   * of notifier URLs are `******`.
   */
  readonly config: Readonly<Record<string, unknown>>;
}

/** One instance's answer in an application-wide proxy call (SBA's InstanceWebProxy result, plus Vigil's `cut` and `message`). */
export interface FanOutResult {
  readonly instanceId: string;
  readonly status: number;
  /** The instance's body as text; left out when empty. */
  readonly body?: string;
  /** Left out with the body. */
  readonly contentType?: string;
  /** True when the answer was left out because the fan-out's byte budget ran out. */
  readonly cut?: true;
  /** Why there is no body, when Vigil left it out. */
  readonly message?: string;
}

/** One delivery as `GET /notifications` shows it. */
export interface DeliveryRecord {
  /** The notification's id (`<instance>-<version>`, `-r<n>` for reminders, `group-…`, `summary-…`). */
  readonly id: string;
  readonly at: string;
  readonly outcome: 'delivered' | 'failed' | 'superseded' | 'dropped';
  /** What it said, in short: `orders (1a2b3c4d5e6f) UP → DOWN`. */
  readonly summary: string;
  readonly attempts: number;
  readonly reason?: string;
}

/** One channel in `GET /notifications`: its settings, counters and recent deliveries (secrets masked). */
export interface NotificationChannelStatus {
  /** The target: `notify-slack` (the channel's default) or `notify-slack:payments`. */
  readonly name: string;
  /** The channel plugin it belongs to (`notify-slack`). */
  readonly channel: string;
  readonly target: string;
  readonly enabled: boolean;
  readonly on: readonly string[];
  readonly ignoreChanges: readonly string[];
  readonly rateLimit: number;
  readonly queued: number;
  readonly inFlight: number;
  readonly delivered: number;
  readonly failed: number;
  readonly retries: number;
  readonly superseded: number;
  readonly coalesced: number;
  readonly dropped: number;
  readonly lastDelivery: DeliveryRecord | null;
  readonly lastFailure: DeliveryRecord | null;
  readonly recent: readonly DeliveryRecord[];
}

/** The body of `GET /notifications`. Durations in milliseconds. */
export interface NotificationsStatus {
  readonly settings: {
    readonly on: readonly string[];
    readonly ignoreChanges: readonly string[];
    readonly hold: number;
    readonly groupWindow: number;
    /** Percent of instances failing at once above which one summary replaces their notifications; 0 = off. */
    readonly selfPreservation: number;
    readonly reminderPeriod: number;
    readonly filtersApi: boolean;
    readonly maxFilters: number;
    /** How many `notify.routes` there are; null without routes (every channel gets everything). */
    readonly routes: number | null;
    readonly maxMaintenance: number;
    readonly expectationsForgetAfter: number;
    readonly perInstanceRate: { readonly count: number; readonly windowMs: number };
    readonly proxy: string | null;
  };
  readonly pipeline: {
    readonly filtered: number; readonly held: number; readonly rateLimited: number; readonly inMaintenance: number;
    /** Notifications no route matched: not sent. */
    readonly unrouted: number;
    readonly summaries: number; readonly reminders: number; readonly expectations: number;
  };
  readonly channels: readonly NotificationChannelStatus[];
  /** Each application a fleet expectation (`notify.expectations`) covers. */
  readonly expectations: readonly ExpectationStatus[];
}

/** An application a fleet expectation covers, in `GET /notifications`. */
export interface ExpectationStatus {
  readonly application: string;
  readonly minUp: number;
  /** How long it may be short before it is announced, in ms. */
  readonly for: number;
  readonly up: number;
  readonly total: number;
  /** `below`: short for less than `for` (or held back by a maintenance window). */
  readonly state: 'ok' | 'below' | 'degraded' | 'disappeared';
  /** Since when it has been short, or null. */
  readonly since: string | null;
}

/** A notification filter as SBA's API shows it: by instance id or by application name, with an optional expiry. */
export interface NotificationFilter {
  readonly id: string;
  readonly instanceId?: string;
  readonly applicationName?: string;
  /** ISO instant, or null for a filter that never expires. */
  readonly expiry: string | null;
  readonly expired: boolean;
}

/** A maintenance window as `GET /maintenance` shows it (`POST /maintenance` answers one too). */
export interface MaintenanceWindow {
  readonly id: string;
  readonly applications: readonly string[];
  readonly instances: readonly string[];
  /** The window's (current or next) `[start, end)`, ISO-8601. */
  readonly start: string;
  readonly end: string;
  readonly active: boolean;
  readonly reason: string;
  readonly createdBy: string;
  /** From `notify.maintenance` (`schedule`, `timezone`, `duration` in ms): it cannot be deleted through the API. */
  readonly recurring: boolean;
  readonly schedule?: string;
  readonly timezone?: string;
  readonly duration?: number;
}

/** Who did it: the principal of the request, or `system` for what the daemon did itself (a reload). */
export interface AuditActor {
  readonly name: string;
  readonly kind: 'user' | 'token' | 'anonymous' | 'system';
  readonly via: 'basic' | 'token' | 'oidc' | null;
}

/**
 * One entry of the audit trail (`GET /audit`). `id` grows with every entry (across the cluster with
 * `cluster-redis`): a stream's `Last-Event-ID`. Fields that do not apply are null.
 */
export interface AuditEntry {
  readonly id: number;
  readonly timestamp: string;
  readonly actor: AuditActor;
  readonly address: string | null;
  /** The action the kernel's access check decided (`actuator.write`), or `auth.*`, `config.reload`. */
  readonly action: string;
  readonly method: string | null;
  readonly path: string | null;
  readonly instance: string | null;
  readonly application: string | null;
  readonly status: number | null;
  readonly durationMs: number | null;
  /** The JSON body of a proxied actuator write (≤ 1 KiB, secrets masked), or what a sign-in failure or reload was. */
  readonly detail: unknown;
}
