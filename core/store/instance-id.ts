import { createHash } from 'node:crypto';

/** SBA's HashingInstanceUrlIdGenerator: the first 6 bytes of SHA-1(healthUrl) as 12 hex characters. */
export function instanceIdOf(healthUrl: string): string {
  return createHash('sha1').update(healthUrl, 'utf8').digest('hex').slice(0, 12);
}
