import type { Readable } from 'node:stream';

/** The stream sent more than the limit; it is left as it is, for the caller to drain or destroy. */
export class StreamTooLargeError extends Error {
  constructor(readonly limit: number) {
    super(`the body exceeds ${limit} bytes`);
    this.name = 'StreamTooLargeError';
  }
}

/**
 * Collects a stream whole, up to `limit` bytes. Rejects with StreamTooLargeError past the limit
 * (nothing more is kept), with the stream's own error, or with ERR_STREAM_PREMATURE_CLOSE when
 * it closes before its end. The stream is never destroyed here: a request must stay open until
 * its error answer is out, a response body is dropped by its caller.
 *
 * Plain stream events rather than `for await`: the async iterator adds promises and a wrapper per
 * body, which on small bodies cost more than the reading: heartbeats and the monitor's checks
 * were measurably faster and promoted less without it (bench/REPORT.md).
 */
export function collectStream(stream: Readable, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      settle();
      reject(new StreamTooLargeError(limit));
    };
    const onEnd = () => {
      settle();
      // Always a copy: a chunk may be a slice of a larger socket buffer that must not be pinned.
      resolve(Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    // 'close' before 'end': the other side went away mid-body without an error being reported.
    const onClose = () => {
      settle();
      reject(Object.assign(new Error('the connection closed before the body ended'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}
