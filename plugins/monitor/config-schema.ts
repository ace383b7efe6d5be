import * as yup from 'yup';
import { duration } from '../../core/plugin-api.js';

// yup 1.7's noUnknown() strips unknown keys while casting and then finds none to report;
// exact() rejects them, which is what CONTRACT §2 asks (a typo must not go unnoticed).
const unknownKeys = '${path} has unknown key(s): ${properties}';

/** A map from endpoint id (`health`, `info`, `actuator-index`, ...) to a value of one schema. */
function endpointMap<T extends yup.Schema>(value: T) {
  // yup has no "record of" type: the keys are only known once the value is seen.
  return yup.lazy((map: unknown) => yup.object(
    Object.fromEntries(Object.keys(typeof map === 'object' && map !== null ? map : {}).map((key) => [key, value.required()])),
  ).exact(unknownKeys).default({}));
}

/**
 * The `monitor` section (CONTRACT §2). Defaults are SBA's; the keys SBA does not have
 * (damping, backoff per instance, concurrency caps, detection-interval) are Vigil's.
 */
export const monitorSchema = yup.object({
  'status-interval': duration().min(1).default(10_000),
  'status-lifetime': duration().min(0).default(10_000),
  'info-interval': duration().min(1).default(60_000),
  'info-lifetime': duration().min(0).default(60_000),
  'default-timeout': duration().min(1).default(10_000),
  'default-retries': yup.number().integer().min(0).max(10).default(0),
  'status-max-backoff': duration().min(0).default(60_000),
  'info-max-backoff': duration().min(0).default(600_000),
  'status-change-detection': yup.string().oneOf(['status', 'full'] as const).default('status'),
  'failures-before-down': yup.number().integer().min(1).default(1),
  'successes-before-up': yup.number().integer().min(1).default(1),
  'detection-interval': duration().min(1).default(300_000),
  timeout: endpointMap(duration().min(1)),
  retries: endpointMap(yup.number().integer().min(0).max(10)),
  'max-concurrent-checks': yup.number().integer().min(1).default(256),
  /** Of those, checks an event asked for (first registrations, status changes): bounded apart so a burst of them leaves the rest room. */
  'max-concurrent-follow-ups': yup.number().integer().min(1).default(16),
  'max-connections-per-origin': yup.number().integer().min(1).default(8),
  /** Use detected endpoints on other hosts than the instance's management or health URL (off: an index could point Vigil anywhere). */
  'allow-foreign-endpoints': yup.boolean().default(false),
  /** Deregister an instance OFFLINE without a break for this long (discovered ones excepted); 0 = never. */
  'deregister-offline-after': duration().min(0).default(0),
}).exact(unknownKeys).default({});

/** The validated section, as the plugin reads it (durations in milliseconds). */
export interface MonitorConfig {
  readonly 'status-interval': number;
  readonly 'status-lifetime': number;
  readonly 'info-interval': number;
  readonly 'info-lifetime': number;
  readonly 'default-timeout': number;
  readonly 'default-retries': number;
  readonly 'status-max-backoff': number;
  readonly 'info-max-backoff': number;
  readonly 'status-change-detection': 'status' | 'full';
  readonly 'failures-before-down': number;
  readonly 'successes-before-up': number;
  readonly 'detection-interval': number;
  readonly timeout: Readonly<Record<string, number>>;
  readonly retries: Readonly<Record<string, number>>;
  readonly 'max-concurrent-checks': number;
  readonly 'max-concurrent-follow-ups': number;
  readonly 'max-connections-per-origin': number;
  readonly 'allow-foreign-endpoints': boolean;
  readonly 'deregister-offline-after': number;
}
