import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Logger } from '../../core/plugin-api.js';
import { AddressThrottle, addressKey } from './address-throttle.js';
import type { Credentials } from './authorization-header.js';
import { BoundedVerifier } from './bounded-verifier.js';
import type { BasicAuthConfig, Role } from './config.js';
import { OccasionalWarning } from './occasional-warning.js';
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

/** What `authenticate` decided. */
export type AuthOutcome =
  | { readonly kind: 'verified'; readonly principal: Principal }
  | { readonly kind: 'refused' }
  /** Not checked now: the client's address failed too often, or too many checks are waiting. */
  | { readonly kind: 'throttled'; readonly reason: 'address' | 'queue'; readonly retryAfterSeconds: number };

const CACHE_ENTRIES = 1000;
const CACHE_TTL_MS = 5 * 60_000;
const WARN_EVERY_MS = 60_000;
const REFUSED: AuthOutcome = { kind: 'refused' };

/**
 * Checks Basic and Bearer credentials against the configured users and tokens. Every check costs
 * the same whether or not the username exists, and every comparison of secrets is constant-time.
 *
 * `authenticate` is the one door every request goes through, in this order: credentials verified
 * recently pass at once (a signed-in dashboard never waits behind a flood); credentials that
 * failed recently fail at once; credentials being verified right now wait for that result; only
 * then does a new verification start, if the client's address has attempts left
 * (`AddressThrottle`) and the scrypt queue has room (`BoundedVerifier`). Otherwise: 429.
 */
export class Authenticator {
  readonly #cache = new VerificationCache<Principal>(CACHE_ENTRIES, CACHE_TTL_MS);
  /**
   * Recent failures, by the same key. A misconfigured client that retries the same wrong password
   * costs nothing after its first try, and is not a new guess: it does not count against its address.
   */
  readonly #failed = new VerificationCache<true>(CACHE_ENTRIES, CACHE_TTL_MS);
  /**
   * Verifications running now, by the same key as the cache. A thousand clients sharing one
   * credential that arrive together (a restart, then every client re-registers) would otherwise
   * each run scrypt before the first result is cached: 50 s of CPU instead of 50 ms.
   */
  readonly #running = new Map<string, Promise<Principal | undefined>>();
  readonly #queueFull: OccasionalWarning;
  readonly #addressSlowed: OccasionalWarning;
  /** Whether a bearer token can need scrypt (a token hash from `vigil hash-password`); SHA-256 ones never do. */
  readonly #scryptTokens: boolean;

  private constructor(
    private readonly users: ReadonlyMap<string, { readonly hash: string; readonly role: Role }>,
    private readonly tokens: readonly StoredToken[],
    /** A hash of a random password, verified when the username is unknown. */
    private readonly dummy: string,
    private readonly log: Logger,
    private readonly verifier: BoundedVerifier,
    private readonly throttle: AddressThrottle,
    /** `failure-refill-interval`, for the warning. */
    private readonly refillMs: number,
  ) {
    this.#queueFull = new OccasionalWarning(log, WARN_EVERY_MS);
    this.#addressSlowed = new OccasionalWarning(log, WARN_EVERY_MS);
    this.#scryptTokens = tokens.some((token) => isHashed(token.hash));
  }

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
    const verifier = new BoundedVerifier(config['max-concurrent-verifications'], config['max-queued-verifications']);
    const refillMs = config['failure-refill-interval'];
    const throttle = new AddressThrottle({ burst: config['failures-per-address'], refillMs, maxAddresses: config['tracked-addresses'] });
    return new Authenticator(users, tokens, await hashPassword(randomBytes(16).toString('base64')), log, verifier, throttle, refillMs);
  }

  /** Verifies `credentials` sent from `remoteAddress` (the socket's peer), within the limits above. */
  async authenticate(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>, remoteAddress: string | undefined): Promise<AuthOutcome> {
    // JSON keeps the parts apart: no username/password split can produce another's key.
    const key = sha256(JSON.stringify(credentials.kind === 'basic'
      ? ['basic', credentials.username, credentials.password]
      : ['bearer', credentials.token])).toString('hex');
    const cached = this.#cache.get(key);
    if (cached) return { kind: 'verified', principal: cached };
    if (this.#failed.get(key)) return REFUSED;
    const running = this.#running.get(key);
    if (running) return outcomeOf(await running);

    const address = addressKey(remoteAddress);
    const budget = this.throttle.take(address);
    if (!budget.allowed) {
      this.#addressSlowed.note(() => `logins from ${address} are slowed down after repeated failures: one more attempt`
        + ` every ${this.refillMs} ms, 429 meanwhile`);
      return throttled('address', budget.retryAfterMs);
    }
    const verify = () => this.#verify(credentials, key);
    const admission = credentials.kind === 'basic' || this.#scryptTokens
      ? this.verifier.submit(verify)
      : { admitted: true as const, result: verify() };
    if (!admission.admitted) {
      this.throttle.refund(address);
      this.#queueFull.note(() => `login verification queue full (${this.verifier.running} running, ${this.verifier.waiting} waiting):`
        + ' logins that need a new password check get 429 until it drains');
      return throttled('queue', admission.retryAfterMs);
    }
    const verification = admission.result.finally(() => this.#running.delete(key));
    this.#running.set(key, verification);
    let principal: Principal | undefined;
    try {
      principal = await verification;
    } catch (error) {
      this.throttle.refund(address);
      throw error;
    }
    // Only failures use up the address's attempts.
    if (principal) this.throttle.refund(address);
    return outcomeOf(principal);
  }

  async #verify(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>, key: string): Promise<Principal | undefined> {
    const principal = credentials.kind === 'basic'
      ? await this.#basic(credentials.username, credentials.password)
      : await this.#bearer(credentials.token);
    if (principal) {
      this.#cache.set(key, principal);
      this.log.debug(`verified ${credentials.kind} credentials of ${principal.label}`);
    } else {
      this.#failed.set(key, true);
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

function outcomeOf(principal: Principal | undefined): AuthOutcome {
  return principal ? { kind: 'verified', principal } : REFUSED;
}

function throttled(reason: 'address' | 'queue', retryAfterMs: number): AuthOutcome {
  return { kind: 'throttled', reason, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
}
