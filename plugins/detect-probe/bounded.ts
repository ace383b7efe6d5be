/**
 * Runs `task` for every item with at most `limit` running at once; stops taking new items once
 * `signal` aborts. Tasks must not reject (each probe maps its own failure to "absent").
 */
export async function forEachBounded<T>(items: readonly T[], limit: number, signal: AbortSignal, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal.aborted) await task(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
