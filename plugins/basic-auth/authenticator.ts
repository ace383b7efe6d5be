import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../core/plugin-api.js';
import type { Credentials } from './authorization-header.js';
import type { BasicAuthConfig, Role } from './config.js';
import { hashPassword, isHashed, verifyPassword } from './scrypt-hash.js';
import { SHA256_PREFIX, sha256 } from './token-hash.js';
import { VerificationCache } from './verification-cache.js';

/** Who made a request, once verified. */
export interface Principal {
  /** For `req.user` and logs: the username, or `token:<name>` for a bearer token. */
  readonly label: string;
  readonly role: Role;
}

interface StoredToken {
  readonly name: string;
  readonly role: Role;
  /** Canonical `token-hash`: `sha256$<hex>` or a scrypt hash. */
  readonly hash: string;
}

const CACHE_ENTRIES = 1000;
const CACHE_TTL_MS = 5 * 60_000;

/**
 * Checks Basic and Bearer credentials against the configured users and tokens. Every check costs
 * the same whether or not the username exists, and every comparison of secrets is constant-time.
 */
export class Authenticator {
  readonly #cache = new VerificationCache<Principal>(CACHE_ENTRIES, CACHE_TTL_MS);
  /**
   * Verifications running now, by the same key as the cache. A thousand clients sharing one
   * credential that arrive together (a restart, then every client re-registers) would otherwise
   * each run scrypt before the first result is cached: 50 s of CPU instead of 50 ms.
   */
  readonly #running = new Map<string, Promise<Principal | undefined>>();

  private constructor(
    private readonly users: ReadonlyMap<string, { readonly hash: string; readonly role: Role }>,
    private readonly tokens: readonly StoredToken[],
    /** A hash of a random password, verified when the username is unknown. */
    private readonly dummy: string,
    private readonly log: Logger,
  ) {}

  /**
   * Plain passwords are hashed once here, so every verification runs the same scrypt (a plain
   * comparison would answer faster and tell which users exist) and no request compares plain text.
   */
  static async create(config: BasicAuthConfig, log: Logger): Promise<Authenticator> {
    const users = new Map<string, { hash: string; role: Role }>();
    for (const user of config.users) {
      users.set(user.username, { hash: isHashed(user.password) ? user.password : await hashPassword(user.password), role: user.role });
    }
    const tokens = config.tokens.map((token) => ({ name: token.name, role: token.role, hash: token['token-hash']! }));
    return new Authenticator(users, tokens, await hashPassword(randomBytes(16).toString('base64')), log);
  }

  async authenticate(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>): Promise<Principal | undefined> {
    // JSON keeps the parts apart: no username/password split can produce another's key.
    const key = sha256(JSON.stringify(credentials.kind === 'basic'
      ? ['basic', credentials.username, credentials.password]
      : ['bearer', credentials.token])).toString('hex');
    const cached = this.#cache.get(key);
    if (cached) return cached;
    const running = this.#running.get(key);
    if (running) return running;
    const verification = this.#verify(credentials, key).finally(() => this.#running.delete(key));
    this.#running.set(key, verification);
    return verification;
  }

  async #verify(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>, key: string): Promise<Principal | undefined> {
    const principal = credentials.kind === 'basic'
      ? await this.#basic(credentials.username, credentials.password)
      : await this.#bearer(credentials.token);
    if (principal) {
      this.#cache.set(key, principal);
      this.log.debug(`verified ${credentials.kind} credentials of ${principal.label}`);
    }
    return principal;
  }

  async #basic(username: string, password: string): Promise<Principal | undefined> {
    const user = this.users.get(username);
    const matches = await verifyPassword(password, user?.hash ?? this.dummy);
    return user && matches ? { label: username, role: user.role } : undefined;
  }

  /** Tries every token without stopping early, so the time taken does not tell how close a guess was. */
  async #bearer(token: string): Promise<Principal | undefined> {
    const digest = sha256(token);
    let found: StoredToken | undefined;
    for (const stored of this.tokens) {
      const matches = stored.hash.startsWith(SHA256_PREFIX)
        ? timingSafeEqual(digest, Buffer.from(stored.hash.slice(SHA256_PREFIX.length), 'hex'))
        : await verifyPassword(token, stored.hash);
      if (matches) found ??= stored;
    }
    return found && { label: `token:${found.name}`, role: found.role };
  }
}
