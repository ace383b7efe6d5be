import { Fifo } from './fifo.js';

/**
 * Continuations let through in one pass of the event loop; the rest wait for the next pass. One:
 * a request read meanwhile waits behind one registration or one check's answer at most, and a
 * pass that has only that to do is short: one node still keeps up with 20,000 instances' checks
 * (bench/REPORT.md, burst and monitoring).
 */
export const SLOTS_PER_TURN = 1;

const waiting = new Fifo<() => void>();
let granted = 0;
let releaseAsked = false;

/**
 * A place in this turn of the event loop for work that follows I/O and may come in hundreds at
 * once: a burst of first registrations, the answers of hundreds of checks. Node runs every
 * callback of one pass over I/O before it reads another request, so without this one pass could
 * run all of them and every other client would wait for the lot. With it, at most
 * SLOTS_PER_TURN go on per pass (the rest resume in later passes, in order), and requests that
 * came in meanwhile are read in between. Costs nothing when there is room: `await turnSlot()`
 * of `undefined` is one microtask.
 */
export function turnSlot(): Promise<void> | undefined {
  askRelease();
  if (granted < SLOTS_PER_TURN && waiting.size === 0) {
    granted += 1;
    return undefined;
  }
  return new Promise<void>((resolve) => {
    waiting.push(resolve);
  });
}

/** Ends the turn's count after the I/O pass (setImmediate runs after it) and lets the next waiters on. */
function askRelease(): void {
  if (releaseAsked) return;
  releaseAsked = true;
  setImmediate(release);
}

function release(): void {
  releaseAsked = false;
  granted = 0;
  while (granted < SLOTS_PER_TURN && waiting.size > 0) {
    granted += 1;
    waiting.shift()!();
  }
  // Those just let through count against this pass: its end resets the count again.
  if (granted > 0) askRelease();
}
