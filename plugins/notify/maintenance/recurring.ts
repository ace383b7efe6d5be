import { Cron } from 'croner';
import { messageOf } from '../../../core/domain/index.js';

/** A start and an end in ms since the epoch: the window is `[start, end)`. */
export interface Occurrence {
  readonly start: number;
  readonly end: number;
}

/**
 * A recurring window's schedule: a 5-field cron pattern read in an IANA time zone, each start
 * opening a window of `durationMs` of elapsed time. croner decides the daylight-saving cases as
 * Vixie cron does: a start at a local time that happens twice (the autumn change) opens one
 * window, at the first occurrence; a start at a local time that does not exist (the spring gap)
 * opens at the first valid time after the gap, the same day. Patterns with a wildcard or a list in
 * the minute or hour field are interval patterns: croner runs them at both repeated times and
 * skips the missing ones. The window lasts `durationMs` whatever the wall clock does meanwhile.
 */
export class Schedule {
  readonly #job: Cron;

  constructor(readonly pattern: string, readonly timezone: string, readonly durationMs: number) {
    // Without a callback and paused, croner only evaluates the pattern: no timer is made.
    this.#job = new Cron(pattern, { timezone, paused: true });
  }

  /** The occurrence running at `at`, or undefined. When several overlap, the oldest. */
  at(at: number): Occurrence | undefined {
    // The oldest start a window still running at `at` can have is just after `at - duration`.
    const start = this.#job.nextRun(new Date(at - this.durationMs))?.getTime();
    return start !== undefined && start <= at ? { start, end: start + this.durationMs } : undefined;
  }

  /** The first occurrence starting after `after`, or undefined when the pattern never runs again. */
  next(after: number): Occurrence | undefined {
    const start = this.#job.nextRun(new Date(after))?.getTime();
    return start === undefined ? undefined : { start, end: start + this.durationMs };
  }
}

/** Why a 5-field cron pattern in a zone is refused, or undefined when croner reads it. */
export function scheduleProblem(pattern: string, timezone: string): string | undefined {
  const fields = pattern.trim().split(/\s+/);
  if (fields.length !== 5) return `must be a 5-field cron pattern (minute hour day-of-month month day-of-week), such as "0 2 * * SUN"; "${clip(pattern)}" has ${fields.length} field${fields.length === 1 ? '' : 's'}`;
  try {
    const job = new Cron(pattern, { timezone, paused: true });
    // croner checks the zone only when it computes a date.
    const next = job.nextRun();
    job.stop();
    if (!next) return `"${clip(pattern)}" never runs`;
    return undefined;
  } catch (error) {
    return `"${clip(pattern)}" is not a valid cron pattern: ${messageOf(error).replace(/^CronPattern: /, '')}`;
  }
}

/** Whether the runtime knows the IANA time zone `zone`. */
export function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const clip = (text: string) => (text.length > 60 ? `${text.slice(0, 60)}…` : text);
