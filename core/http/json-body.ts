import type { IncomingMessage } from 'node:http';
import { HttpError } from './http-error.js';
import { readBody } from './read-body.js';

export const BODY_LIMIT = 1024 * 1024;
const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;
const NOT_BLANK = /\S/;

/**
 * Reads and parses a JSON request body. The Content-Type must be JSON (`application/json` or a
 * `+json` type): 415 otherwise, as SBA's `consumes` does. Over `limit` bytes → 413, without
 * reading the rest into memory; malformed → 400.
 */
export async function readJsonBody(req: IncomingMessage, limit = BODY_LIMIT): Promise<unknown> {
  const type = req.headers['content-type'] ?? '';
  // The type nearly every client sends, without the pattern; anything else is matched by it.
  if (type !== 'application/json' && !JSON_TYPE.test(type)) {
    req.resume();
    throw new HttpError(415, `Content-Type must be application/json, got ${type ? JSON.stringify(type) : 'none'}`);
  }
  const text = (await readBody(req, limit)).toString('utf8');
  try {
    return JSON.parse(text);
  } catch (error) {
    // Only a body that failed to parse is searched for a non-blank character (not trimmed: that copies it).
    if (!NOT_BLANK.test(text)) throw new HttpError(400, 'request body is empty; expected a JSON document');
    throw new HttpError(400, `request body is not valid JSON: ${(error as Error).message}`);
  }
}
