/**
 * Runs `fn` over `items` with at most `limit` calls at once, started in list order, and resolves
 * with the results in input order: the one worker pool of plugins that call many instances or
 * hosts at once (a fan-out, a round of probes or look-ups, a discovery run's writes). The first
 * call that fails starts nothing new, and the pool rejects with its error once the calls in
 * flight have settled. Once `signal` aborts nothing new starts either, and the items not started
 * have no result: a caller that passes a signal checks it.
 */
export async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>, signal?: AbortSignal): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { readonly error: unknown } | undefined;
  const worker = async () => {
    while (next < items.length && !failure && !signal?.aborted) {
      const index = next++;
      try {
        results[index] = await fn(items[index]!);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure) throw failure.error;
  return results;
}
