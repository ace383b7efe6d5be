/**
 * A first-in, first-out line with O(1) `shift`. An item is let go the moment it leaves: a line
 * that kept it for a later compaction would keep whatever it holds (a whole check: request,
 * response, promises) alive long enough to be promoted to the old generation, which at
 * thousands of items a second fills the heap with garbage. The array is compacted now and then
 * instead of `Array.prototype.shift`, which is O(n) on a long line.
 */
export class Fifo<T> {
  /** Waiting items from `#head` on; slots before it are emptied as items leave. */
  readonly #items: (T | undefined)[] = [];
  #head = 0;

  get size(): number {
    return this.#items.length - this.#head;
  }

  push(item: T): void {
    this.#items.push(item);
  }

  /** Lets go of every item. */
  clear(): void {
    this.#items.length = 0;
    this.#head = 0;
  }

  /** The oldest item, removed; undefined when the line is empty. */
  shift(): T | undefined {
    if (this.#head === this.#items.length) return undefined;
    const item = this.#items[this.#head];
    this.#items[this.#head] = undefined;
    this.#head += 1;
    if (this.#head === this.#items.length) {
      this.#items.length = 0;
      this.#head = 0;
    } else if (this.#head > 1024 && this.#head * 2 > this.#items.length) {
      this.#items.splice(0, this.#head);
      this.#head = 0;
    }
    return item;
  }
}
