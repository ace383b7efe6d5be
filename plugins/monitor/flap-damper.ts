/**
 * Flap damping (Vigil's, not SBA's): a move across the UP boundary is recorded only after N
 * consecutive results on the new side, so one lost health answer does not page anyone. Moves
 * between two non-UP statuses, and the first result after UNKNOWN, pass at once. With both
 * thresholds at 1 (the default) this is exactly SBA's behaviour.
 */
export class FlapDamper {
  readonly #streaks = new Map<string, { readonly up: boolean; readonly count: number }>();

  constructor(private failuresBeforeDown: number, private successesBeforeUp: number) {}

  /** New thresholds (reload); streaks counted so far are kept. */
  reconfigure(failuresBeforeDown: number, successesBeforeUp: number): void {
    this.failuresBeforeDown = failuresBeforeDown;
    this.successesBeforeUp = successesBeforeUp;
  }

  /** Whether `observed` may be recorded now for an instance whose recorded status is `recorded`. */
  admit(id: string, recorded: string, observed: string): boolean {
    const up = observed === 'UP';
    if (recorded === 'UNKNOWN' || (recorded === 'UP') === up) {
      this.#streaks.delete(id);
      return true;
    }
    const previous = this.#streaks.get(id);
    const count = previous?.up === up ? previous.count + 1 : 1;
    if (count >= (up ? this.successesBeforeUp : this.failuresBeforeDown)) {
      this.#streaks.delete(id);
      return true;
    }
    this.#streaks.set(id, { up, count });
    return false;
  }

  forget(id: string): void {
    this.#streaks.delete(id);
  }
}
