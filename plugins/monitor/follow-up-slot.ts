import type { CheckOutcome } from './check-outcome.js';
import type { TaskLine } from './concurrency-limiter.js';

/**
 * How long a follow-up keeps its slot at most: well above a call's round trip on a LAN, far below
 * a hung call's time-out. Short, because a busy loop can leave one slot (follow-up-governor.ts):
 * hung new instances then let one follow-up through per hold.
 */
export const FOLLOW_UP_HOLD_MS = 250;

/**
 * Runs `start` (a check, through the cap on all calls) in one of the follow-up slots, which it
 * keeps until the check ends or for `holdMs`, whichever comes first. The cap is there for answers
 * that come back in bunches; a slow or hung new instance gives its slot back and is waited for
 * on the cap of all calls only, so it does not hold up the instances registered after it.
 * `aborted` is asked when the slot comes: a check dropped while it waited is not started.
 */
export function inFollowUpSlot(followUps: TaskLine, holdMs: number, aborted: () => boolean, start: () => Promise<CheckOutcome>): Promise<CheckOutcome> {
  return new Promise((resolve, reject) => {
    void followUps.run(() => {
      if (aborted()) {
        resolve('skipped');
        return Promise.resolve();
      }
      return new Promise<void>((release) => {
        const timer = setTimeout(release, holdMs);
        timer.unref();
        start().then((outcome) => {
          clearTimeout(timer);
          release();
          resolve(outcome);
        }, (error: unknown) => {
          clearTimeout(timer);
          release();
          reject(error);
        });
      });
    });
  });
}
