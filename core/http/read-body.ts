import type { IncomingMessage } from 'node:http';
import { StreamTooLargeError, collectStream } from './collect-stream.js';
import { HttpError } from './http-error.js';

/**
 * Reads a request body whole, up to `limit` bytes: 413 beyond it, checked on Content-Length first
 * and then while reading, so an oversized body is never held in memory; the rest is drained so
 * the connection stays usable. A body cut short (the client closed mid-body, broken chunked
 * framing) is the client's fault: 400.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw tooLarge(limit);
  }
  try {
    return await collectStream(req, limit);
  } catch (error) {
    if (!(error instanceof StreamTooLargeError)) throw new HttpError(400, `request body is incomplete: ${(error as Error).message}`);
    req.resume();
    throw tooLarge(limit);
  }
}

function tooLarge(limit: number): HttpError {
  return new HttpError(413, `request body exceeds the limit of ${limit} bytes`);
}
