import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashes in the form `scrypt$N=16384,r=8,p=1$<salt base64>$<hash base64>`: self-describing,
 * so the cost can be raised later without breaking stored hashes. scrypt is memory-hard and ships
 * with Node, so no native dependency is needed. N=16384, r=8, p=1 is the cost OWASP lists as a
 * minimum for scrypt (~50 ms, 16 MiB).
 */
export const SCRYPT_PREFIX = 'scrypt$';
const DEFAULT_COST = { N: 16384, r: 8, p: 1 } as const;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Upper bound on 128·N·r (the memory scrypt needs), so a hostile config cannot exhaust memory. */
const MAX_MEMORY = 256 * 1024 * 1024;
const FORMAT = /^scrypt\$N=(\d+),r=(\d+),p=(\d+)\$([A-Za-z0-9+/]+={0,2})\$([A-Za-z0-9+/]+={0,2})$/;

export interface ScryptHash {
  readonly N: number;
  readonly r: number;
  readonly p: number;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** True when `value` is meant as a scrypt hash (by its prefix); `parseScrypt` says whether it is well formed. */
export function isHashed(value: string): boolean {
  return value.startsWith(SCRYPT_PREFIX);
}

/** The parts of an encoded hash, or undefined when it is malformed or its cost is out of bounds. */
export function parseScrypt(encoded: string): ScryptHash | undefined {
  const match = FORMAT.exec(encoded);
  if (!match) return undefined;
  const [N, r, p] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const salt = Buffer.from(match[4]!, 'base64');
  const hash = Buffer.from(match[5]!, 'base64');
  const powerOfTwo = N > 1 && (N & (N - 1)) === 0;
  if (!powerOfTwo || r < 1 || p < 1 || p > 16 || 128 * N * r > MAX_MEMORY) return undefined;
  if (salt.length < 8 || hash.length < 16) return undefined;
  return { N, r, p, salt, hash };
}

export async function hashPassword(plain: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(plain, salt, KEY_BYTES, DEFAULT_COST);
  const { N, r, p } = DEFAULT_COST;
  return `${SCRYPT_PREFIX}N=${N},r=${r},p=${p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** Whether `plain` matches `encoded`; false (never a throw) for a malformed hash. */
export async function verifyPassword(plain: string, encoded: string): Promise<boolean> {
  const parsed = parseScrypt(encoded);
  if (!parsed) return false;
  const derived = await derive(plain, parsed.salt, parsed.hash.length, parsed);
  // Equal lengths by construction; timingSafeEqual does not stop at the first differing byte.
  return timingSafeEqual(derived, parsed.hash);
}

function derive(plain: string, salt: Buffer, length: number, cost: { N: number; r: number; p: number }): Promise<Buffer> {
  const options: ScryptOptions = { N: cost.N, r: cost.r, p: cost.p, maxmem: 2 * 128 * cost.N * cost.r };
  return new Promise((resolve, reject) => {
    scrypt(plain.normalize('NFC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}
