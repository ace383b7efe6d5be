import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Records kept under a secret id (a session cookie's value) are stored under a hash of the id and
 * encrypted with a key derived from it: a copy of the store (a Redis dump, `KEYS *`) holds neither
 * a usable id nor a readable ID or refresh token. Only whoever holds the cookie can open its record.
 */

/** A new secret id: 256 random bits, base64url (43 characters, cookie-safe). */
export function newSecretId(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether a cookie value has the shape of an id `newSecretId` makes (anything else is not looked up). */
export function isSecretId(value: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(value);
}

/** The key a record is stored under: SHA-256 of the id. */
export function storageKeyOf(id: string): string {
  return createHash('sha256').update(id).digest('base64url');
}

function keyOf(id: string): Buffer {
  return Buffer.from(hkdfSync('sha256', id, Buffer.alloc(0), 'vigil oidc session record', 32));
}

/** AES-256-GCM under the id's key: `iv.tag.ciphertext`, base64url. */
export function seal(id: string, value: unknown): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', keyOf(id), iv);
  const body = Buffer.concat([cipher.update(JSON.stringify(value), 'utf8'), cipher.final()]);
  return [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64url')).join('.');
}

/** The record sealed under `id`, or undefined when it is not one (another id's, damaged). */
export function unseal(id: string, sealed: string): unknown {
  const [iv, tag, body] = sealed.split('.').map((part) => Buffer.from(part, 'base64url'));
  if (!iv || !tag || !body || iv.length !== 12 || tag.length !== 16) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keyOf(id), iv);
    decipher.setAuthTag(tag);
    return JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8'));
  } catch {
    return undefined;
  }
}
