import type { CancelToken } from './cancellation.js';

/**
 * What one check reports to the scheduler that ran it:
 * - `ok`: the instance answered (whatever the status);
 * - `error`: it did not (transport failure, time-out): the scheduler backs off;
 * - `skipped`: nothing to do now (preconditions unmet, or the check was aborted);
 * - `gone`: the instance is not registered any more: the scheduler forgets it.
 */
export type CheckOutcome = 'ok' | 'error' | 'skipped' | 'gone';

/** An updater: the "what" of a check, without any notion of "when" (SBA's split). */
export type Check = (id: string, cancel: CancelToken) => Promise<CheckOutcome>;
