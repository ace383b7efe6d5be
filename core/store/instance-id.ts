import { hash } from 'node:crypto';

let lastUrl = '';
let lastId = '';

/**
 * SBA's HashingInstanceUrlIdGenerator: the first 6 bytes of SHA-1(healthUrl) as 12 hex characters.
 * Every heartbeat computes it: the one-shot `hash` is a third of what a Hash object costs, and
 * the last answer is kept, as a registration asks twice (for the held registration, then to write).
 */
export function instanceIdOf(healthUrl: string): string {
  if (healthUrl === lastUrl) return lastId;
  lastId = hash('sha1', healthUrl, 'hex').slice(0, 12);
  lastUrl = healthUrl;
  return lastId;
}
