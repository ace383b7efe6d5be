import { createHash } from 'node:crypto';
import { isHashed, parseScrypt } from './scrypt-hash.js';

/**
 * Bearer tokens are stored hashed. A token generated for a script is long and random, so a fast
 * SHA-256 (`sha256$<64 hex>`, or the bare hex `sha256sum` prints) protects it as well as scrypt
 * would; scrypt hashes from `vigil hash-password` are accepted too, for tokens chosen by people.
 */
export const SHA256_PREFIX = 'sha256$';
const HEX_DIGEST = /^[0-9a-f]{64}$/i;

export function sha256(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

/** The stored form of a plain token: what a `token:` entry becomes during config validation. */
export function hashToken(token: string): string {
  return `${SHA256_PREFIX}${sha256(token).toString('hex')}`;
}

/** `token-hash` in canonical form (`sha256$<lower hex>` or the scrypt hash), or undefined if invalid. */
export function canonicalTokenHash(value: string): string | undefined {
  const trimmed = value.trim();
  if (isHashed(trimmed)) return parseScrypt(trimmed) ? trimmed : undefined;
  const hex = trimmed.startsWith(SHA256_PREFIX) ? trimmed.slice(SHA256_PREFIX.length) : trimmed;
  return HEX_DIGEST.test(hex) ? `${SHA256_PREFIX}${hex.toLowerCase()}` : undefined;
}
