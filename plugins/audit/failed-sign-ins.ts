/** How often one address and user's failed sign-ins make an entry at most. */
export const FAILURE_WINDOW_MS = 60_000;
/** How many address-and-user pairs are remembered; a flood from many addresses cannot grow memory past it. */
const MAX_PAIRS = 10_000;

/**
 * Failed sign-ins, counted per address and user, so that guessing passwords makes one entry a
 * minute per pair (with how many failures it stands for), not one per attempt.
 */
export class FailedSignIns {
  readonly #pairs = new Map<string, { first: number; since: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** Counts one failure; returns how many it stands for when an entry is due now, else undefined. */
  note(address: string, user: string): number | undefined {
    const key = `${address}\n${user}`;
    const now = this.now();
    const pair = this.#pairs.get(key);
    if (pair && now - pair.first < FAILURE_WINDOW_MS) {
      pair.since += 1;
      return undefined;
    }
    const count = (pair?.since ?? 0) + 1;
    // Re-inserted, so the map's order is the order of last entries: the oldest go first.
    this.#pairs.delete(key);
    this.#pairs.set(key, { first: now, since: 0 });
    if (this.#pairs.size > MAX_PAIRS) this.#pairs.delete(this.#pairs.keys().next().value!);
    return count;
  }
}
