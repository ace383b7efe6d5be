import type { ServerResponse } from 'node:http';

/** About how much JSON is handed to the socket at a time. */
const PIECE_CHARS = 64 * 1024;

/**
 * A JSON array written piece by piece (chunked), each item turned into its view only when its
 * turn comes, waiting for the socket to drain. `JSON.stringify` of the whole array held every
 * view and the whole text (twice over, as a string and its bytes) at once: the daemon's
 * whole-life RSS peak under bench/monitoring, and a larger heap long after (bench/REPORT.md).
 * Stops quietly when the client goes away.
 */
export async function sendJsonArray<T>(res: ServerResponse, status: number, items: readonly T[] | AsyncIterable<readonly T[]>, view: (item: T) => unknown, headers: Record<string, string> = {}): Promise<void> {
  // Batches read as the socket takes them (a list a cluster reads from Redis): the first is read
  // before the status goes out, so a store that cannot answer gets the usual error response.
  const batches = Array.isArray(items) ? undefined : (items as AsyncIterable<readonly T[]>)[Symbol.asyncIterator]();
  let batch = batches ? await batches.next() : { done: false, value: items as readonly T[] };
  res.writeHead(status, { ...headers, 'content-type': 'application/json' });
  let piece = '[';
  let first = true;
  try {
    while (!batch.done) {
      const list: readonly T[] = batch.value;
      for (let i = 0; i < list.length; i += 1) {
        piece += (first ? '' : ',') + JSON.stringify(view(list[i]!));
        first = false;
        if (piece.length < PIECE_CHARS) continue;
        const more = res.write(piece);
        piece = '';
        if (!more && !(await drained(res))) {
          await batches?.return?.();
          return;
        }
      }
      batch = batches ? await batches.next() : { done: true, value: undefined };
    }
  } catch (error) {
    // Half an array is already on the wire: the client must see a cut connection, never a
    // truncated body that parses as something else, or an error body after it.
    res.destroy(error instanceof Error ? error : new Error(String(error)));
    return;
  }
  res.end(`${piece}]`);
}

/** Whether the response can take more (drained) rather than being closed meanwhile. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onDrain = () => done(true);
    const onClose = () => done(false);
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}
