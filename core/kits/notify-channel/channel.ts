import { defineToken, type Logger } from '../../plugin-api.js';

/**
 * # Notification channels
 *
 * The `notify` plugin runs the pipeline (triggers, hold, grouping, storm control, reminders,
 * filters, delivery with retries); each channel plugin (`notify-slack`, `notify-mail`, ...)
 * contributes one `NotificationChannel` under `NOTIFICATION_CHANNEL` and only turns a
 * notification into its own payload. A channel never sees an event the pipeline dropped, and never
 * retries by itself: it reports each attempt's outcome and the pipeline decides.
 */

/** The instance events a channel can be notified of. */
export type NotifiedInstanceEventType = 'REGISTERED' | 'DEREGISTERED' | 'STATUS_CHANGED';
/** What fleet expectations (`notify.expectations`) say about a whole application. */
export type ApplicationEventType = 'APPLICATION_DEGRADED' | 'APPLICATION_RECOVERED';
/** The event types a channel can be notified of (`on:`). */
export type NotifiedEventType = NotifiedInstanceEventType | ApplicationEventType;
export const APPLICATION_EVENT_TYPES: readonly ApplicationEventType[] = ['APPLICATION_DEGRADED', 'APPLICATION_RECOVERED'];
export const NOTIFIED_EVENT_TYPES: readonly NotifiedEventType[] = ['REGISTERED', 'DEREGISTERED', 'STATUS_CHANGED', ...APPLICATION_EVENT_TYPES];

/**
 * What a notification says about an instance. Registration data is attacker-controlled (anyone
 * who may register chooses the name, URLs and metadata): channels escape every value for their
 * format. Metadata is already sanitised (`metadata-keys-to-sanitize`), URL passwords masked.
 */
export interface NotifiedInstance {
  readonly id: string;
  readonly name: string;
  readonly healthUrl: string;
  readonly managementUrl: string | null;
  readonly serviceUrl: string | null;
  readonly source: string | null;
  readonly metadata: Readonly<Record<string, string>>;
  /** The status the notification is about (`to`) and its health details when still current, else `{}`. */
  readonly statusInfo: { readonly status: string; readonly details: Readonly<Record<string, unknown>> };
}

/** One instance's change. */
export interface InstanceNotification {
  readonly kind: 'instance';
  /**
   * Stable across retries and unique per change: `<instance>-<version>`, `-r<n>` for the n-th
   * reminder (`webhook-id`, mail `Message-ID`, ...).
   */
  readonly id: string;
  readonly type: NotifiedInstanceEventType;
  readonly instance: NotifiedInstance;
  /** The status before: the instance's previous recorded status (the same on every node). */
  readonly from: string;
  readonly to: string;
  readonly version: number;
  /** When the change was recorded (ISO-8601). */
  readonly timestamp: string;
  /** 0 for the change itself; n for its n-th reminder. Reminders are never suppressed as "same status". */
  readonly reminder: number;
  /**
   * How many earlier changes of this instance this one replaced: pending ones when the channel's
   * queue was full, or ones kept back by `notify.per-instance-rate`.
   */
  readonly coalesced: number;
  /** The dashboard's base URL, for links (`notify.base-url`, else the address Vigil listens on). */
  readonly baseUrl: string;
  /**
   * Set when the change is reported at the end of a maintenance window (its id, `M-3`, or the
   * name of a recurring window): the instance's notifications were held during the window and
   * its status then differs from the one before it, so `from` is the status before the window and
   * `to` the status at its end ("DOWN after maintenance").
   */
  readonly afterMaintenance?: string;
}

/** Several changes inside one `group-window` (or reminders due together), sent as one message. */
export interface GroupNotification {
  readonly kind: 'group';
  readonly id: string;
  readonly timestamp: string;
  readonly items: readonly InstanceNotification[];
  readonly reminder: boolean;
  readonly baseUrl: string;
}

/**
 * Self-preservation: most instances went OFFLINE at once (`lost`: a storm opens), or came back at
 * once (`regained`); `recovered` says that every instance a storm listed has recovered (or was
 * deregistered) after some were still failing when the others came back. A storm is over, and an
 * incident opened for it may be resolved, only when `remaining` is 0.
 */
export interface SummaryNotification {
  readonly kind: 'summary';
  readonly id: string;
  readonly timestamp: string;
  readonly direction: 'lost' | 'regained' | 'recovered';
  /** How many instances changed, of `total` registered (`recovered`: how many the storm listed). */
  readonly count: number;
  readonly total: number;
  /** Instances the storm listed that are still failing after this notification: 0 when the storm is over. */
  readonly remaining: number;
  /** Some of them (at most 50), for payloads that list them. */
  readonly instances: readonly { readonly id: string; readonly name: string }[];
  readonly baseUrl: string;
}

/**
 * A fleet expectation (`notify.expectations`) about one application: fewer than `required`
 * instances were UP for the expectation's `for` (`APPLICATION_DEGRADED`), or enough are UP again
 * (`APPLICATION_RECOVERED`). The application name is attacker-controlled like any registration
 * data: channels escape it.
 */
export interface ApplicationNotification {
  readonly kind: 'application';
  /** Stable across retries, unique per change: `application-<hash of the name>-<since>-degraded|recovered`. */
  readonly id: string;
  readonly type: ApplicationEventType;
  readonly application: string;
  /** Instances UP when the notification was made, and how many the expectation requires. */
  readonly up: number;
  readonly required: number;
  /** Registered instances of the application (0 when it has disappeared). */
  readonly total: number;
  /** Some of its instances (at most 50), worst status first. */
  readonly instances: readonly { readonly id: string; readonly status: string }[];
  /** No instance is registered: its last one deregistered or was removed. */
  readonly disappeared: boolean;
  /**
   * `APPLICATION_RECOVERED` only: the expectation was dropped, not met again: the application
   * stayed without any instance for `notify.expectations-forget-after` (`disappeared`), or the
   * config no longer has an expectation for it (`required` is then 0).
   */
  readonly forgotten: boolean;
  /** Since when it has been below the requirement (DEGRADED), or when it holds again (RECOVERED). */
  readonly since: string;
  readonly timestamp: string;
  readonly baseUrl: string;
}

export type Notification = InstanceNotification | GroupNotification | SummaryNotification | ApplicationNotification;

/** The outcome of one delivery attempt. `reason` must never contain a secret. */
export type Attempt =
  /** `body`: the receiver's answer (at most 64 KiB), when the request asked for it (`readAnswer`). */
  | { readonly outcome: 'delivered'; readonly status?: number; readonly body?: string }
  /** A transient failure (network, timeout, 408, 429, 5xx): try again, no sooner than `retryAfterMs` when given. */
  | { readonly outcome: 'retry'; readonly reason: string; readonly retryAfterMs?: number; readonly status?: number }
  /** A final failure (another 4xx, a rejected mail): given up at once. */
  | { readonly outcome: 'failed'; readonly reason: string; readonly status?: number };

/** One HTTP request of a channel. The body is sent as JSON unless it is a string. */
export interface OutgoingRequest {
  readonly url: string;
  readonly method?: 'POST' | 'PUT' | 'DELETE';
  readonly headers?: Readonly<Record<string, string>>;
  /** Sent as JSON unless it is a string; left out when undefined (a DELETE). */
  readonly body: unknown;
  /** A wait the receiver asked for in its body (Discord `retry_after`, Telegram `parameters.retry_after`), in ms. */
  readonly retryAfterFromBody?: (json: unknown) => number | undefined;
  /** Keep the body of a 2xx answer (an id the receiver made, say) in the attempt; otherwise it is discarded unread. */
  readonly readAnswer?: boolean;
}

/** What the pipeline lends a channel for an attempt. */
export interface DeliveryTools {
  /**
   * Sends one request with the per-request timeout, through `notify.proxy` when set, and
   * classifies the answer: 2xx delivered; network errors, timeouts, 408, 429 and 5xx retried
   * (honouring `Retry-After`); anything else failed. Never rejects; redirects are not followed.
   */
  send(request: OutgoingRequest): Promise<Attempt>;
  /** The per-attempt timeout (`notify.delivery.timeout`), for channels with their own transport (SMTP). */
  readonly timeoutMs: number;
  /** Aborted when Vigil stops. */
  readonly signal: AbortSignal;
  readonly log: Logger;
}

/** The keys every channel has; `undefined` inherits the `notify` section's value. */
export interface ChannelSettings {
  readonly enabled: boolean;
  readonly on: readonly NotifiedEventType[] | undefined;
  /** `from:to`, `*:to` or `from:*` status changes not to notify. */
  readonly ignoreChanges: readonly string[] | undefined;
  /** Messages per second at most (a token bucket); 0 means no limit. */
  readonly rateLimit: number;
  /** Whether reminders are sent to this channel (false where the receiver re-sends by itself). */
  readonly reminders: boolean;
  /**
   * Event types the channel is told of whatever its `on` says, because its receiver keeps state
   * that only they end (Alertmanager: the alerts of a deregistered instance must be resolved).
   */
  readonly alwaysOn?: readonly NotifiedEventType[];
}

export interface NotificationChannel {
  /** The contributing plugin's name (`notify-slack`): names the channel in logs and `GET /notifications`. */
  readonly name: string;
  readonly settings: ChannelSettings;
  /** Where it delivers, with every secret masked (`https://hooks.slack.com/******`). */
  readonly target: string;
  /** Every secret of its config (URLs with tokens, keys, passwords): masked in any line the pipeline writes. */
  readonly secrets: readonly string[];
  /** Makes one attempt. A throw counts as a transient failure (retried). */
  deliver(notification: Notification, tools: DeliveryTools): Promise<Attempt>;
  /**
   * Work the channel repeats, on one node of a cluster: the pipeline runs it every `intervalMs`
   * while this node holds the lease named after the channel (Alertmanager re-sends its firing
   * alerts every minute).
   */
  readonly periodic?: { readonly intervalMs: number; run(tools: DeliveryTools): Promise<void> };
  /**
   * For a receiver that can mute alerts itself (Alertmanager's silences): told when a maintenance
   * window begins and when it ends, on one node of a cluster, whatever the channel's `on` says.
   */
  readonly maintenance?: MaintenanceHook;
  /** Releases what the channel holds (an SMTP pool); called when `notify` stops. */
  close?(): Promise<void>;
  /**
   * For a channel whose section can change while running (a reload; `defineChannel` does it):
   * `listener` runs after each change, and `notify` reads `settings`, `target`, `secrets`,
   * `periodic` and `maintenance` again. Returns the function that unsubscribes.
   */
  onChange?(listener: () => void): () => void;
}

/** One occurrence of a maintenance window, as a channel's `maintenance` hook sees it. */
export interface MaintenanceWindowFacts {
  /** Unique per occurrence: the window's id (`M-3`), or `<name>@<start>` for a recurring one. */
  readonly key: string;
  /** `M-3`, or the name of a recurring window from the config. */
  readonly id: string;
  /** Globs on application names (`*` any run of characters, `?` one); an instance matching any is in the window. */
  readonly applications: readonly string[];
  /** Instance ids in the window, whatever their application. */
  readonly instances: readonly string[];
  /** ISO-8601 instants: the window is `[start, end)`. */
  readonly start: string;
  readonly end: string;
  readonly reason: string;
  /** Who made it (`req.user`, `anonymous`), or `config` for a recurring window. */
  readonly createdBy: string;
}

/**
 * What a channel does when a maintenance window begins and ends. Each call is one attempt: a
 * `retry` outcome is tried again later (with a growing pause), a `failed` one is logged and given
 * up. Calls may repeat after a node change, so each must be idempotent (keep what was made in
 * `SHARED_STATE`, keyed by `window.key`).
 */
export interface MaintenanceHook {
  started(window: MaintenanceWindowFacts, tools: DeliveryTools): Promise<Attempt>;
  /** `early`: the window was deleted before its planned end (else it simply ran out). */
  ended(window: MaintenanceWindowFacts, tools: DeliveryTools, early: boolean): Promise<Attempt>;
}

export const NOTIFICATION_CHANNEL = defineToken<NotificationChannel>('vigil.notification-channel');
