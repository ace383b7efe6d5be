/**
 * When an outbox item is done. The item fans out to several channels (and may wait in a hold or
 * a group first); each piece of work holds the completion and releases it when finished, and the
 * creator releases its own share once everything is handed out. `done` resolves at zero: only then
 * may a durable outbox forget the item.
 */
export class Completion {
  #pending = 1;
  #resolve!: () => void;
  readonly done = new Promise<void>((resolve) => {
    this.#resolve = resolve;
  });

  hold(): void {
    this.#pending += 1;
  }

  release(): void {
    this.#pending -= 1;
    if (this.#pending === 0) this.#resolve();
  }
}
