import { hash } from 'node:crypto';

/** The last health URL asked for and its id: a registration asks twice (parsing it, then registering it). */
let lastUrl = '';
let lastId = idOf(lastUrl);

/**
 * SBA's HashingInstanceUrlIdGenerator: the first 6 bytes of SHA-1(healthUrl) as 12 hex characters.
 * Every heartbeat computes it: the one-shot `hash` is a third of what a Hash object costs.
 */
export function instanceIdOf(healthUrl: string): string {
  if (healthUrl === lastUrl) return lastId;
  lastId = idOf(healthUrl);
  lastUrl = healthUrl;
  return lastId;
}

function idOf(healthUrl: string): string {
  return hash('sha1', healthUrl, 'hex').slice(0, 12);
}
