import type { TaskLine } from './concurrency-limiter.js';

/**
 * How long a follow-up keeps its slot at most: well above a call's round trip on a LAN, far below
 * a hung call's time-out. Short, because a busy loop can leave one slot (follow-up-governor.ts):
 * hung new instances then let one follow-up through per hold.
 */
export const FOLLOW_UP_HOLD_MS = 250;

/**
 * Runs `begin` (a check, through `limiter`, the cap on all calls) in one of the follow-up slots,
 * which it keeps until the check ends or for `holdMs`, whichever comes first. The cap is there for
 * answers that come back in bunches; a slow or hung new instance gives its slot back and is waited
 * for on the cap of all calls only, so it does not hold up the instances registered after it.
 * `aborted` is asked when the slot comes: a check dropped while it waited does not wait for the
 * cap of all calls (`begin` then finds it cancelled at once). `begin`'s promise never rejects.
 */
export function inFollowUpSlot(followUps: TaskLine, limiter: TaskLine, holdMs: number, aborted: () => boolean, begin: () => Promise<void>): void {
  followUps.submit(() => {
    if (aborted()) return begin();
    return new Promise<void>((release) => {
      const timer = setTimeout(release, holdMs);
      timer.unref();
      limiter.submit(() => begin().then(() => {
        clearTimeout(timer);
        release();
      }));
    });
  });
}
