/**
 * The first `seq` of a log started now: the start time in microseconds. Stream ids are these
 * seqs, and a client resuming with an id from an earlier run of the daemon (or an earlier
 * incarnation of a shared log) must never have it taken for an id of this run: it would
 * silently skip events. Starting each run above every id an earlier run could have issued (it
 * would have needed more than a thousand events per millisecond of its life to get here) keeps
 * ids decimal and increasing across restarts, and stays far below 2^53 for millennia.
 */
export function runSeqBase(now: number = Date.now()): number {
  return now * 1000;
}
