import * as yup from 'yup';
import { CHANGE_PATTERN, NOTIFIED_EVENT_TYPES, httpUrl, type NotifiedEventType } from '../../core/kits/notify-channel/index.js';
import { duration } from '../../core/plugin-api.js';
import { expectationsSchema, type ExpectationConfig } from './expectations/config.js';
import { isInstanceRate, parseInstanceRate, type InstanceRate } from './instance-rate.js';
import { recurringWindowsSchema, type RecurringWindowConfig } from './maintenance/config.js';
import { routesSchema, type RouteConfig } from './routing/config.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';

/**
 * The `notify` section: what every channel inherits (`on`, `ignore-changes`), the pipeline's
 * stages and the delivery policy. Defaults are SBA's behaviour where SBA has one (no hold, no
 * grouping, no reminders, `UNKNOWN:UP` ignored); storm control is on, as the issue asks.
 */
export const notifySchema = yup.object({
  on: yup.array(yup.string().oneOf([...NOTIFIED_EVENT_TYPES], '${path} must be one of ${values}').required())
    .default(['STATUS_CHANGED', 'APPLICATION_DEGRADED', 'APPLICATION_RECOVERED']),
  'ignore-changes': yup.array(yup.string().matches(CHANGE_PATTERN, '${path} must look like FROM:TO, *:TO or FROM:* (e.g. UNKNOWN:UP)').required())
    .default(['UNKNOWN:UP']),
  /** Flap damping: a change is sent only once it held this long; a return within it drops both. */
  hold: duration().min(0).default(0),
  /** Changes inside this window become one message per channel. */
  'group-window': duration().min(0).default(0),
  /** Percent of all instances: more going OFFLINE (or back) within the window give one summary. 0 = off. */
  'self-preservation': yup.number().min(0).max(100).default(50),
  /** The window of storm control: the monitor's status interval, during which one network fault shows everywhere. */
  'self-preservation-window': duration().min(1).default(10_000),
  /** Fewer changes than this are never a storm (one instance of one is not a lost network). */
  'self-preservation-min': yup.number().integer().min(1).default(10),
  reminder: yup.object({
    /** 0 = off (SBA's default: reminders only when declared). */
    period: duration().min(0).default(0),
    statuses: yup.array(yup.string().required()).default(['DOWN', 'OFFLINE']),
    'check-interval': duration().min(1).default(10_000),
  }).exact(unknownKeys).default({}),
  'filters-api': yup.boolean().default(true),
  /**
   * Notifications of one instance at most, `6` a minute or `N/DURATION` (`3/10s`); the excess is
   * folded into the next one allowed. 0 = off.
   */
  'per-instance-rate': yup.mixed<InstanceRate>()
    .transform((value: unknown, original: unknown) => parseInstanceRate(original) ?? value)
    .test('rate', '${path} must be a whole number of notifications a minute (6) or N/DURATION (6/1m, 3/10s); 0 turns it off', (value) => value === undefined || isInstanceRate(value))
    .default({ count: 6, windowMs: 60_000 }),
  /** Live notification filters at most: each is held by every node and read again every second. */
  'max-filters': yup.number().integer().min(1).default(1000),
  /** Which targets each notification goes to; without it every channel's default target gets everything. */
  routes: routesSchema,
  /** Recurring maintenance windows: `{name, applications, instances, schedule, duration, timezone, reason}`. */
  maintenance: recurringWindowsSchema,
  /** Windows made through `POST /maintenance` that may run or wait at once: each is held by every node and read every second. */
  'max-maintenance': yup.number().integer().min(1).default(1000),
  /** Fleet expectations: `{applications, min-up, for}`; an application matches the first entry whose globs match its name. */
  expectations: expectationsSchema,
  /** How long an application without any instance still counts (as 0 UP) before it is no longer expected. */
  'expectations-forget-after': duration().min(1000).default(86_400_000),
  /** The dashboard's URL in links (mail, PagerDuty, Alertmanager's generatorURL); default: the address Vigil listens on. */
  'base-url': httpUrl().default(''),
  delivery: yup.object({
    timeout: duration().min(1).default(10_000),
    /** Attempts before giving up; 0 (the default): no limit, retries go on until `max-age`. */
    'max-attempts': yup.number().integer().min(0).default(0),
    /** No retry is scheduled past this age of a notification. */
    'max-age': duration().min(1).default(3_600_000),
    'backoff-base': duration().min(1).default(1000),
    'backoff-cap': duration().min(1).default(300_000),
    /** Deliveries in flight per channel (always one at a time per instance). */
    concurrency: yup.number().integer().min(1).max(64).default(8),
    /** Pending notifications per channel; beyond it, pending ones of an instance are coalesced. */
    'queue-size': yup.number().integer().min(1).default(10_000),
  }).exact(unknownKeys).default({}),
  /** An HTTP proxy for every channel's calls, e.g. http://user:${PW}@proxy:3128 (never logged). */
  proxy: httpUrl().default(''),
}).exact(unknownKeys).default({});

export interface NotifyConfig {
  readonly on: NotifiedEventType[];
  readonly 'ignore-changes': string[];
  readonly hold: number;
  readonly 'group-window': number;
  readonly 'self-preservation': number;
  readonly 'self-preservation-window': number;
  readonly 'self-preservation-min': number;
  readonly reminder: { readonly period: number; readonly statuses: string[]; readonly 'check-interval': number };
  readonly 'filters-api': boolean;
  readonly 'max-filters': number;
  readonly 'per-instance-rate': InstanceRate;
  readonly routes?: RouteConfig[];
  readonly maintenance: RecurringWindowConfig[];
  readonly 'max-maintenance': number;
  readonly expectations: ExpectationConfig[];
  readonly 'expectations-forget-after': number;
  readonly 'base-url': string;
  readonly delivery: DeliverySettings;
  readonly proxy: string;
}

export interface DeliverySettings {
  readonly timeout: number;
  readonly 'max-attempts': number;
  readonly 'max-age': number;
  readonly 'backoff-base': number;
  readonly 'backoff-cap': number;
  readonly concurrency: number;
  readonly 'queue-size': number;
}
