import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';

/** What a sealed record starts with; a record in clear is JSON, and starts with `{`. */
const PREFIX = 'vigil-sealed:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** HKDF's salt and info: fixed, so every node derives the same key from the same secret. */
const SALT = 'vigil/cluster-redis';
const INFO = 'record-seal/v1';

/** What a record is, bound into its seal with its instance id: a sealed record cannot be moved to another place or instance. */
export type RecordKind = 'event' | 'snapshot';

export type Opened =
  | { readonly ok: true; readonly json: string; readonly sealed: boolean }
  | { readonly ok: false; readonly reason: string };

/**
 * Seals the records Vigil keeps in Redis (events and snapshots) with AES-256-GCM under a key
 * derived from `cluster-redis.secret-key`: HKDF-SHA256 of the secret's UTF-8 bytes, salt
 * `vigil/cluster-redis`, info `record-seal/v1`, 32 bytes. A sealed record is
 * `vigil-sealed:v1:<key id>:<base64url of IV (12 random bytes), ciphertext, tag (16 bytes)>`, its
 * additional data `v1|<kind>|<instance id>`; the key id (8 hex digits of an HMAC of a fixed text
 * under the key) tells a node holding another key from a record that was altered. Without a
 * secret, records are written in clear as before; records in clear are read either way, so a
 * cluster that adds a key keeps what it wrote before.
 */
export class RecordSeal {
  readonly #key: Buffer | undefined;
  /** This node's key id, or undefined without a secret. */
  readonly keyId: string | undefined;

  constructor(secret: string | undefined) {
    if (secret === undefined || secret === '') return;
    this.#key = Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), SALT, INFO, 32));
    this.keyId = createHmac('sha256', this.#key).update('vigil key id').digest('hex').slice(0, 8);
  }

  get enabled(): boolean {
    return this.#key !== undefined;
  }

  /** The record as written to Redis: sealed with a key, the JSON itself without one. */
  seal(kind: RecordKind, id: string, json: string): string {
    if (!this.#key) return json;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(additionalData(kind, id));
    const body = Buffer.concat([iv, cipher.update(json, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${this.keyId}:${body.toString('base64url')}`;
  }

  /** The JSON of a record read from Redis, or why it cannot be read; never throws. */
  open(kind: RecordKind, id: string, text: string): Opened {
    if (!text.startsWith(PREFIX)) {
      return text.startsWith('{') ? { ok: true, json: text, sealed: false } : { ok: false, reason: 'it is neither JSON nor a sealed record' };
    }
    const rest = text.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const keyId = colon === 8 ? rest.slice(0, 8) : '?';
    if (!this.#key) return { ok: false, reason: `it is sealed (key id ${keyId}) and this node has no cluster-redis.secret-key` };
    if (keyId !== this.keyId) return { ok: false, reason: `it is sealed with another cluster-redis.secret-key (key id ${keyId}; this node's is ${this.keyId})` };
    const body = Buffer.from(rest.slice(colon + 1), 'base64url');
    if (body.length < IV_BYTES + TAG_BYTES) return { ok: false, reason: 'its seal is cut short' };
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, body.subarray(0, IV_BYTES));
      decipher.setAAD(additionalData(kind, id));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const json = Buffer.concat([decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)), decipher.final()]).toString('utf8');
      return { ok: true, json, sealed: true };
    } catch {
      return { ok: false, reason: `its seal does not verify under this node's key (altered, or moved from another ${kind === 'event' ? 'instance or place' : 'instance'})` };
    }
  }
}

function additionalData(kind: RecordKind, id: string): Buffer {
  return Buffer.from(`v1|${kind}|${id}`, 'utf8');
}
