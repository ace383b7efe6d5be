/**
 * When an outbox item is done. The item fans out to several channels (and may wait in a hold or
 * a group first); each piece of work holds the completion and releases it when finished, and the
 * creator releases its own share once everything is handed out. `done` resolves at zero: only then
 * may a durable outbox forget the item. It rejects when the item is abandoned: another node took
 * it over, and this one sends nothing more for it.
 */
export class Completion {
  #pending = 1;
  #resolve!: () => void;
  #reject!: (reason: Error) => void;
  readonly done = new Promise<void>((resolve, reject) => {
    this.#resolve = resolve;
    this.#reject = reject;
  });

  /** `held`: whether this node still holds the item (see OutboxItem.held). */
  constructor(private readonly stillHeld: () => boolean = () => true) {
    // Abandoned with no one waiting (a share not yet handed out): nothing to report.
    this.done.catch(() => undefined);
  }

  /** Whether this node may still act on the item: checked right before each delivery attempt. */
  get held(): boolean {
    return this.stillHeld();
  }

  /** Another node took the item over: nothing more is sent for it here, and it is not done here. */
  abandon(): void {
    this.#reject(new Error('another node took the item over'));
  }

  hold(): void {
    this.#pending += 1;
  }

  release(): void {
    this.#pending -= 1;
    if (this.#pending === 0) this.#resolve();
  }
}
