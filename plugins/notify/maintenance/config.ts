import * as yup from 'yup';
import { duration } from '../../../core/plugin-api.js';
import { isTimeZone, scheduleProblem } from './recurring.js';

const unknownKeys = '${path} has unknown key(s): ${properties}';
/** A recurring window's name: it is its id in `GET /maintenance` and in notification ids. */
export const WINDOW_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

/** One entry of `notify.maintenance`, as validated (duration in ms). */
export interface RecurringWindowConfig {
  readonly name: string;
  readonly applications: string[];
  readonly instances: string[];
  readonly schedule: string;
  readonly duration: number;
  readonly timezone: string;
  readonly reason: string;
}

/**
 * A recurring maintenance window: `schedule` (5-field cron) read in `timezone`, each run opening a
 * window of `duration`, over the applications (globs) and instances named. The pattern and the
 * zone are checked here, so `--check-config` refuses a bad one naming the key.
 */
export const recurringWindowSchema = yup.object({
  name: yup.string().required('${path} is required').matches(WINDOW_NAME, '${path} must be letters, digits, ".", "_" or "-" (at most 64), starting with a letter or digit'),
  applications: yup.array(yup.string().required().min(1, '${path} must not be empty')).default([]),
  instances: yup.array(yup.string().required().min(1, '${path} must not be empty')).default([]),
  schedule: yup.string().required('${path} is required'),
  duration: duration().min(1000, '${path} must be at least 1s').required('${path} is required'),
  timezone: yup.string().default('UTC').test('zone', '${path} must be an IANA time zone such as Europe/Berlin or UTC', (zone) => zone === undefined || isTimeZone(zone)),
  reason: yup.string().max(1000).default(''),
}).exact(unknownKeys)
  .test('scope', '${path} must name applications or instances (or both)', (window) => !window || window.applications.length + window.instances.length > 0)
  .test('schedule', '', function check(window) {
    if (!window?.schedule || !isTimeZone(window.timezone)) return true;
    const problem = scheduleProblem(window.schedule, window.timezone);
    // A function, so yup does not read `${...}` in the operator's pattern as its own placeholder.
    return problem === undefined || this.createError({ path: `${this.path}.schedule`, message: () => `${this.path}.schedule ${problem}` });
  });

/** `notify.maintenance`: names must differ (a name is the window's id). */
export const recurringWindowsSchema = yup.array(recurringWindowSchema.required()).default([])
  .test('unique', '', function unique(windows) {
    const seen = new Set<string>();
    for (const window of windows ?? []) {
      if (seen.has(window.name)) return this.createError({ message: () => `${this.path} has two windows named "${window.name}": each needs its own name` });
      seen.add(window.name);
    }
    return true;
  });
