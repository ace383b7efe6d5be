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

/** The event types a channel can be notified of (`on:`). */
export type NotifiedEventType = 'REGISTERED' | 'DEREGISTERED' | 'STATUS_CHANGED';
export const NOTIFIED_EVENT_TYPES: readonly NotifiedEventType[] = ['REGISTERED', 'DEREGISTERED', 'STATUS_CHANGED'];

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
  readonly type: NotifiedEventType;
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

export type Notification = InstanceNotification | GroupNotification | SummaryNotification;

/** The outcome of one delivery attempt. `reason` must never contain a secret. */
export type Attempt =
  | { readonly outcome: 'delivered'; readonly status?: number }
  /** A transient failure (network, timeout, 408, 429, 5xx): try again, no sooner than `retryAfterMs` when given. */
  | { readonly outcome: 'retry'; readonly reason: string; readonly retryAfterMs?: number; readonly status?: number }
  /** A final failure (another 4xx, a rejected mail): given up at once. */
  | { readonly outcome: 'failed'; readonly reason: string; readonly status?: number };

/** One HTTP request of a channel. The body is sent as JSON unless it is a string. */
export interface OutgoingRequest {
  readonly url: string;
  readonly method?: 'POST' | 'PUT';
  readonly headers?: Readonly<Record<string, string>>;
  readonly body: unknown;
  /** A wait the receiver asked for in its body (Discord `retry_after`, Telegram `parameters.retry_after`), in ms. */
  readonly retryAfterFromBody?: (json: unknown) => number | undefined;
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
  /** Releases what the channel holds (an SMTP pool); called when `notify` stops. */
  close?(): Promise<void>;
  /**
   * For a channel whose section can change while running (a reload; `defineChannel` does it):
   * `listener` runs after each change, and `notify` reads `settings`, `target`, `secrets` and
   * `periodic` again. Returns the function that unsubscribes.
   */
  onChange?(listener: () => void): () => void;
}

export const NOTIFICATION_CHANNEL = defineToken<NotificationChannel>('vigil.notification-channel');
