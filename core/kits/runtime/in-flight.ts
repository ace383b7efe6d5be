interface Link<T> {
  value: T | undefined;
  prev: Link<T> | undefined;
  next: Link<T> | undefined;
}

/**
 * The things currently in progress (calls, requests), kept so that a shutdown can reach them
 * all, built for thousands of arrivals and departures a second on a long-lived owner.
 *
 * Why not a Set: V8 rebuilds a Set's hash table as entries come and go, and links each outgrown
 * table to the one that replaced it while keeping the entries it held. Once one table lives long
 * enough to reach the old generation, that chain keeps every later table, and the whole object
 * graph of every entry they ever held, alive through each young-generation collection: each
 * request is promoted to the old generation and dies only in a full collection (bench/REPORT.md,
 * measured under bench/proxy). A doubly linked list whose departed links are emptied leaves
 * nothing dead pointing at anything younger.
 */
export class InFlight<T extends object> {
  #head: Link<T> | undefined;
  #tail: Link<T> | undefined;
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /** Adds `value`; the returned function takes it out again (a second call does nothing). */
  add(value: T): () => void {
    const link: Link<T> = { value, prev: this.#tail, next: undefined };
    if (this.#tail) this.#tail.next = link;
    else this.#head = link;
    this.#tail = link;
    this.#size++;
    return () => this.#remove(link);
  }

  /**
   * What is in progress now, as a copy: acting on an entry (aborting a call) may take entries
   * out while the caller goes through them.
   */
  snapshot(): T[] {
    const values: T[] = [];
    for (let link = this.#head; link; link = link.next) values.push(link.value!);
    return values;
  }

  #remove(link: Link<T>): void {
    if (link.value === undefined) return;
    if (link.prev) link.prev.next = link.next;
    else this.#head = link.next;
    if (link.next) link.next.prev = link.prev;
    else this.#tail = link.prev;
    link.value = link.prev = link.next = undefined;
    this.#size--;
  }
}
