interface Waiter {
  readonly key: number;
  readonly resolve: (reached: boolean) => void;
  timer: NodeJS.Timeout | undefined;
}

/**
 * Promises waiting for a number to reach a mark (a seq to be applied, a version to be held),
 * kept in a min-heap so releasing "everything up to n" costs only the waiters it releases.
 */
export class Waiters {
  readonly #heap: Waiter[] = [];

  get size(): number {
    return this.#heap.length;
  }

  /** Resolves true once `releaseUpTo` reaches `key`, or false after `timeoutMs`. */
  until(key: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const waiter: Waiter = { key, resolve, timer: undefined };
      waiter.timer = setTimeout(() => {
        this.#remove(waiter);
        resolve(false);
      }, timeoutMs);
      waiter.timer.unref();
      this.#push(waiter);
    });
  }

  /** Resolves every waiter whose key is at most `mark`. */
  releaseUpTo(mark: number): void {
    while (this.#heap.length > 0 && this.#heap[0]!.key <= mark) {
      const waiter = this.#pop()!;
      clearTimeout(waiter.timer);
      waiter.resolve(true);
    }
  }

  /** Resolves every waiter (the state they waited on was replaced). */
  releaseAll(): void {
    this.releaseUpTo(Infinity);
  }

  #push(waiter: Waiter): void {
    this.#heap.push(waiter);
    this.#siftUp(this.#heap.length - 1);
  }

  #siftUp(start: number): void {
    const heap = this.#heap;
    for (let i = start; i > 0;) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.key <= heap[i]!.key) return;
      [heap[parent], heap[i]] = [heap[i]!, heap[parent]!];
      i = parent;
    }
  }

  #pop(): Waiter | undefined {
    const heap = this.#heap;
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      this.#siftDown(0);
    }
    return top;
  }

  #siftDown(start: number): void {
    const heap = this.#heap;
    let i = start;
    for (;;) {
      const [left, right] = [2 * i + 1, 2 * i + 2];
      let smallest = i;
      if (left < heap.length && heap[left]!.key < heap[smallest]!.key) smallest = left;
      if (right < heap.length && heap[right]!.key < heap[smallest]!.key) smallest = right;
      if (smallest === i) return;
      [heap[smallest], heap[i]] = [heap[i]!, heap[smallest]!];
      i = smallest;
    }
  }

  /** Takes out a waiter that timed out (rare: a linear search is fine). */
  #remove(waiter: Waiter): void {
    const heap = this.#heap;
    const index = heap.indexOf(waiter);
    if (index < 0) return;
    const last = heap.pop()!;
    if (index === heap.length) return;
    heap[index] = last;
    // The moved one may belong above or below its new place.
    this.#siftDown(index);
    this.#siftUp(index);
  }
}
