import type { Readable } from 'node:stream';

/** The methods whose request body is forwarded (SBA drops the body of every other method). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Reads a request body whole, for re-sending it to several instances; 413 beyond `limit`. */
export { readBody as readRequestBody } from '../../core/plugin-api.js';

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
