import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';

/**
 * Reads a request body whole, up to `limit` bytes: 413 beyond it, checked on Content-Length first
 * and then while reading, so an oversized body is never held in memory.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new HttpError(413, `request body exceeds the limit of ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    // Leaving the loop must not destroy the request: that would reset the socket before the 413.
    for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > limit) {
        req.resume(); // drain the rest, so the connection stays usable
        throw new HttpError(413, `request body exceeds the limit of ${limit} bytes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof HttpError) throw error;
    // The client closed mid-body or sent broken chunked framing: its fault, not a server error.
    throw new HttpError(400, `request body is incomplete: ${error instanceof Error ? error.message : String(error)}`);
  }
  return Buffer.concat(chunks);
}
