import type { IncomingMessage } from 'node:http';
import type { Readable } from 'node:stream';
import { HttpError } from '../../core/plugin-api.js';

/** The methods whose request body is forwarded (SBA drops the body of every other method). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Reads a request body whole, for re-sending it to several instances; 413 beyond `limit`. */
export async function readRequestBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    req.resume();
    throw new HttpError(413, `request body exceeds the limit of ${limit} bytes`);
  }
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop must not destroy the request: that would reset the socket before the 413.
  for await (const chunk of req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      req.resume(); // drain the rest, so the connection stays usable
      throw new HttpError(413, `request body exceeds the limit of ${limit} bytes`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Collects a response body up to `limit` bytes; undefined (and the stream destroyed) beyond it. */
export async function collectBody(body: Readable, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      body.destroy();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
