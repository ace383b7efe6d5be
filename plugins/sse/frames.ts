import type { IncomingMessage } from 'node:http';

const CRLF = Buffer.from('\r\n');

/**
 * One SSE message as it goes on the wire, encoded once and shared by every subscriber it is
 * written to. `chunk` is the same message framed as one HTTP/1.1 chunk (size line, message,
 * CRLF), made on first use: a stream writes that to its socket itself, one write per subscriber,
 * where node:http's `res.write` queues the size line, the message and the CRLF separately and
 * flushes them a tick later. With many subscribers that is a good part of the time one event
 * holds the event loop (bench/REPORT.md; the rest is the kernel's, one write() each).
 */
export class Frame {
  #chunk: Buffer | undefined;

  constructor(readonly bytes: Buffer) {}

  get chunk(): Buffer {
    return (this.#chunk ??= Buffer.concat([Buffer.from(`${this.bytes.length.toString(16)}\r\n`, 'latin1'), this.bytes, CRLF]));
  }
}

/** The keep-alive comment. Written on connect too, which also flushes the headers Node holds back until the first write. */
export const PING = new Frame(Buffer.from(':ping\n\n'));

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
export function frame(seq: number, data: unknown): Frame {
  // JSON.stringify never emits a raw newline, so the payload is always a single `data:` line.
  return new Frame(Buffer.from(`id: ${seq}\ndata: ${JSON.stringify(data)}\n\n`));
}

/** Several messages sent as one write (they share an id, and a resume must not split them). */
export function joinFrames(frames: readonly Frame[]): Frame {
  return new Frame(Buffer.concat(frames.map((one) => one.bytes)));
}

/**
 * The `Last-Event-ID` a reconnecting client sent, or undefined. A value that is not a
 * non-negative integer is ignored (treated as absent) rather than refused: an EventSource retries
 * on its own and would loop on a 400, while a fresh live stream is always a safe answer.
 */
export function lastEventIdOf(req: IncomingMessage): number | undefined {
  const raw = req.headers['last-event-id'];
  if (typeof raw !== 'string' || !/^\s*\d{1,16}\s*$/.test(raw)) return undefined;
  return Number(raw);
}
