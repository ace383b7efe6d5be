import type { IncomingMessage } from 'node:http';

/** The keep-alive comment. Written on connect too, which also flushes the headers Node holds back until the first write. */
export const PING = Buffer.from(':ping\n\n');

export const STREAM_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream;charset=UTF-8',
  'cache-control': 'no-cache',
  // nginx buffers proxied responses unless told not to; a buffered stream delivers nothing live.
  'x-accel-buffering': 'no',
  connection: 'keep-alive',
};

/**
 * One SSE message: `id:` is the event's global `seq`, so a reconnecting client can resume after it.
 * Encoded to bytes here, once per event: a string would be UTF-8 encoded again for every one of
 * thousands of subscribers it is written to.
 */
export function frame(seq: number, data: unknown): Buffer {
  // JSON.stringify never emits a raw newline, so the payload is always a single `data:` line.
  return Buffer.from(`id: ${seq}\ndata: ${JSON.stringify(data)}\n\n`);
}

/**
 * The `Last-Event-ID` a reconnecting client sent, or undefined. A value that is not a
 * non-negative integer is ignored (treated as absent) rather than refused: an EventSource retries
 * on its own and would loop on a 400, while a fresh live stream is always a safe answer.
 */
export function lastEventIdOf(req: IncomingMessage): number | undefined {
  const raw = req.headers['last-event-id'];
  if (typeof raw !== 'string' || !/^\s*\d{1,15}\s*$/.test(raw)) return undefined;
  return Number(raw);
}
