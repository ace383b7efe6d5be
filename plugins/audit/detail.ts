import type { VigilRequest } from '../../core/plugin-api.js';

/** How much of a proxied write's body an entry keeps. */
export const MAX_DETAIL_BYTES = 1024;
const MASK = '******';

/**
 * The first bytes of a request body, as the route reads them: it taps the request's `data`
 * events (every chunk a reader takes passes through them, whichever way it reads), so the
 * stream is neither read early nor slowed, and the proxy forwards it untouched.
 */
export class BodySample {
  readonly #chunks: Buffer[] = [];
  #bytes = 0;
  #whole = true;

  constructor(req: VigilRequest) {
    const emit = req.emit;
    const sample = this;
    req.emit = function tapped(this: VigilRequest, event: string | symbol, ...args: unknown[]): boolean {
      if (event === 'data' && sample.#whole) sample.#take(args[0]);
      return emit.call(this, event, ...args);
    } as typeof req.emit;
  }

  /** How many bytes the route read. */
  get bytes(): number {
    return this.#bytes;
  }

  /** The body when it was at most `MAX_DETAIL_BYTES`, else undefined. */
  get text(): string | undefined {
    return this.#whole && this.#bytes > 0 ? Buffer.concat(this.#chunks, this.#bytes).toString('utf8') : undefined;
  }

  #take(chunk: unknown): void {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk instanceof Buffer ? chunk : undefined;
    if (!buffer) return;
    this.#bytes += buffer.length;
    if (this.#bytes > MAX_DETAIL_BYTES) {
      this.#whole = false;
      this.#chunks.length = 0;
      return;
    }
    this.#chunks.push(buffer);
  }
}

/**
 * What an entry keeps of a proxied write's body: the JSON value with the value of every key
 * matching `metadata-keys-to-sanitize` masked, at any depth. A body over 1 KiB, or not JSON, is
 * described, never kept: it could hold anything.
 */
export function detailOf(text: string | undefined, bytes: number, sanitize: readonly RegExp[]): unknown {
  if (text === undefined) return bytes > 0 ? { body: `not kept (${bytes} bytes, over ${MAX_DETAIL_BYTES})` } : null;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { body: `not kept (not JSON, ${Buffer.byteLength(text)} bytes)` };
  }
  return masked(value, sanitize);
}

function masked(value: unknown, sanitize: readonly RegExp[]): unknown {
  if (Array.isArray(value)) return value.map((item) => masked(item, sanitize));
  if (value === null || typeof value !== 'object') return value;
  const result: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    result[key] = sanitize.some((pattern) => pattern.test(key)) ? MASK : masked(item, sanitize);
  }
  // Spring's `POST /actuator/env` names the property in `name` and its value in `value`.
  if (typeof result.name === 'string' && 'value' in result && sanitize.some((pattern) => pattern.test(result.name as string))) result.value = MASK;
  return result;
}

/** `metadata-keys-to-sanitize` patterns as the kernel matches them: the whole key, any case. */
export function sanitizePatterns(patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => new RegExp(`^(?:${pattern})$`, 'i'));
}
