import type { Readable } from 'node:stream';
import type { ByteBudget } from './fan-out-limits.js';

/** The methods whose request body is forwarded (SBA drops the body of every other method). */
export const BODY_METHODS: ReadonlySet<string> = new Set(['POST', 'PUT', 'PATCH']);

/** Reads a request body whole, for re-sending it to several instances; 413 beyond `limit`. */
export { readBody as readRequestBody } from '../../core/plugin-api.js';

/** A collected answer: whole, over the instance's own limit, or cut because the fan-out's budget ran out. */
export type Collected =
  | { readonly outcome: 'whole'; readonly content: Buffer }
  | { readonly outcome: 'too-large' }
  | { readonly outcome: 'cut' };

/**
 * Collects a response body up to `limit` bytes, each chunk taken from `budget` (shared with the
 * fan-out's other answers). Past either the stream is destroyed and nothing is kept: a truncated
 * body would look like valid, complete data. What a dropped body had taken goes back to the budget.
 */
export async function collectWithin(body: Readable, limit: number, budget?: ByteBudget): Promise<Collected> {
  const chunks: Buffer[] = [];
  let size = 0;
  const drop = (outcome: 'too-large' | 'cut'): Collected => {
    body.destroy();
    budget?.giveBack(size);
    return { outcome };
  };
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (size + chunk.length > limit) return drop('too-large');
    if (budget && !budget.take(chunk.length)) return drop('cut');
    size += chunk.length;
    chunks.push(chunk);
  }
  return { outcome: 'whole', content: chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size) };
}

/** Collects a response body up to `limit` bytes; undefined (and the stream destroyed) beyond it. */
export async function collectBody(body: Readable, limit: number): Promise<Buffer | undefined> {
  const collected = await collectWithin(body, limit);
  return collected.outcome === 'whole' ? collected.content : undefined;
}
