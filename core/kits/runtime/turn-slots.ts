import { Fifo } from '../../plugin-api.js';

/**
 * Continuations let through at the end of one pass of the event loop; the rest wait for the next
 * pass. One: a request read meanwhile waits behind one registration or one check's answer at
 * most, and one node still keeps up with a large fleet's checks (bench/REPORT.md, burst and
 * monitoring).
 */
export const SLOTS_PER_TURN = 1;

const waiting = new Fifo<() => void>();
let releaseAsked = false;

/**
 * A place at the end of this turn of the event loop for work that follows I/O and may come in
 * hundreds at once: a burst of first registrations, the answers of hundreds of checks. Node runs
 * every callback of one pass over I/O before it reads another request, so without this one pass
 * could run all of them and every other client would wait for the lot. With it, the requests read
 * in this pass are handled first, then SLOTS_PER_TURN go on (the rest in later passes, in order).
 * Even with room it waits for the end of the pass (`setImmediate`): letting the first one go on at
 * once put it ahead of the requests read with it (bench/REPORT.md).
 *
 * Its job is yielding, not capping: the monitor paces its own checks apart, with a cap on checks
 * in flight that also starts only a few per pass (`ConcurrencyLimiter`) and a cap on follow-ups
 * that follows the loop's load (`FollowUpGovernor`).
 */
export function turnSlot(): Promise<void> {
  askRelease();
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
  });
}

/** Asks for the end of this pass over I/O (setImmediate runs after it): the next waiters go on there. */
function askRelease(): void {
  if (releaseAsked) return;
  releaseAsked = true;
  setImmediate(release);
}

function release(): void {
  releaseAsked = false;
  for (let granted = 0; granted < SLOTS_PER_TURN && waiting.size > 0; granted += 1) waiting.shift()!();
  if (waiting.size > 0) askRelease();
}
