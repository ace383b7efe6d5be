import { randomBytes, timingSafeEqual } from 'node:crypto';
import { OccasionalWarning, addressKey, type Logger } from '../../core/plugin-api.js';
import { AddressThrottle } from './address-throttle.js';
import type { Credentials } from './authorization-header.js';
import { BoundedVerifier } from './bounded-verifier.js';
import type { BasicAuthConfig, Role } from './config.js';
import { hashPassword, isHashed, verifyPassword } from './scrypt-hash.js';
import { SHA256_PREFIX, sha256 } from './token-hash.js';
import { VerificationCache } from './verification-cache.js';

export interface AuthenticatorOptions {
  /** The clock of every expiry and budget (tests simulate hours with it). */
  readonly now?: () => number;
  /** The authenticator a reload replaces: the credentials it verified are still not throttled. */
  readonly previous?: Authenticator;
}

/** Who made a request, once verified. */
export interface Principal {
  /** For `req.user` and logs: the username, or `token:<name>` for a bearer token. */
  readonly label: string;
  /** The configured role; none: decided by the kernel's `access` check. */
  readonly role: Role | undefined;
  /** The token's name, for a bearer token. */
  readonly token?: string;
  /** When the token stops working (epoch ms), for a token with `expires`. */
  readonly expiresAt?: number;
}

interface StoredToken {
  readonly name: string;
  readonly role: Role | undefined;
  readonly expiresAt: number | undefined;
  /** Canonical `token-hash`: `sha256$<hex>` or a scrypt hash. */
  readonly hash: string;
}

/** What `authenticate` decided. */
export type AuthOutcome =
  | { readonly kind: 'verified'; readonly principal: Principal }
  | { readonly kind: 'refused' }
  /** A token that matched but whose `expires` has passed. */
  | { readonly kind: 'expired' }
  /** Not checked now: this user name (or bearer tokens) failed too often from the client's address, or too many checks are waiting. */
  | { readonly kind: 'throttled'; readonly reason: 'address' | 'queue'; readonly retryAfterSeconds: number };

const CACHE_ENTRIES = 1000;
/** How long a verification is trusted without use; each use extends it. */
const CACHE_TTL_MS = 5 * 60_000;
/** How long credentials once verified skip the failure budget when checked again, unused. */
const KNOWN_TTL_MS = 24 * 60 * 60_000;
const WARN_EVERY_MS = 60_000;
const REFUSED: AuthOutcome = { kind: 'refused' };
const EXPIRED: AuthOutcome = { kind: 'expired' };

/**
 * Checks Basic and Bearer credentials against the configured users and tokens. Every check costs
 * the same whether or not the username exists, and every comparison of secrets is constant-time.
 *
 * `authenticate` is the one door every request goes through, in this order: credentials verified
 * within the last 5 minutes of use pass at once (a signed-in dashboard never waits behind a flood,
 * however long it lasts); credentials that failed recently fail at once; credentials being
 * verified right now wait for that result; only then does a new verification start, if the
 * scrypt queue has room (`BoundedVerifier`) and, unless these exact credentials were verified
 * before (a user back from a break is not guessing), if this user name has attempts left from the
 * client's address (`AddressThrottle`). Otherwise: 429.
 *
 * The budget is per address and user name, not per address: behind a reverse proxy, a NAT or a
 * shared /64 one address is many people, and one of them flooding wrong passwords for one name
 * must not lock everyone else out.
 */
export class Authenticator {
  readonly #cache: VerificationCache<Principal>;
  /**
   * Recent failures, by the same key. A misconfigured client that retries the same wrong password
   * costs nothing after its first try, and is not a new guess: it does not count against its address.
   */
  readonly #failed: VerificationCache<true>;
  /**
   * Credentials verified at some point, by the same key: checked again when their cache entry is
   * gone, but never throttled, since whoever sends them is not guessing. Kept across reloads (the
   * check against the new config still decides).
   */
  readonly #known: VerificationCache<true>;
  #verifications = 0;
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
    private readonly users: ReadonlyMap<string, { readonly hash: string; readonly role: Role | undefined }>,
    private readonly tokens: readonly StoredToken[],
    /** A hash of a random password, verified when the username is unknown. */
    private readonly dummy: string,
    private readonly log: Logger,
    private readonly verifier: BoundedVerifier,
    private readonly throttle: AddressThrottle,
    /** `failure-refill-interval`, for the warning. */
    private readonly refillMs: number,
    private readonly now: () => number,
    known: VerificationCache<true> | undefined,
  ) {
    this.#cache = new VerificationCache(CACHE_ENTRIES, CACHE_TTL_MS, now);
    this.#failed = new VerificationCache(CACHE_ENTRIES, CACHE_TTL_MS, now);
    this.#known = known ?? new VerificationCache(CACHE_ENTRIES, KNOWN_TTL_MS, now);
    this.#queueFull = new OccasionalWarning(log, WARN_EVERY_MS, now);
    this.#addressSlowed = new OccasionalWarning(log, WARN_EVERY_MS, now);
    this.#scryptTokens = tokens.some((token) => isHashed(token.hash));
  }

  /**
   * Plain passwords are hashed once here, so every verification runs the same scrypt (a plain
   * comparison would answer faster and tell which users exist) and no request compares plain text.
   */
  static async create(config: BasicAuthConfig, log: Logger, options: AuthenticatorOptions = {}): Promise<Authenticator> {
    const now = options.now ?? Date.now;
    const users = new Map<string, { hash: string; role: Role | undefined }>();
    for (const user of config.users) {
      users.set(user.username, { hash: isHashed(user.password) ? user.password : await hashPassword(user.password), role: user.role });
    }
    const tokens = config.tokens.map((token) => ({
      name: token.name, role: token.role, hash: token['token-hash']!, expiresAt: token.expires === undefined ? undefined : Date.parse(token.expires as string),
    }));
    const verifier = new BoundedVerifier(config['max-concurrent-verifications'], config['max-queued-verifications']);
    const refillMs = config['failure-refill-interval'];
    const throttle = new AddressThrottle({ burst: config['failures-per-address'], refillMs, maxAddresses: config['tracked-addresses'] }, now);
    const dummy = await hashPassword(randomBytes(16).toString('base64'));
    return new Authenticator(users, tokens, dummy, log, verifier, throttle, refillMs, now, options.previous === undefined ? undefined : options.previous.#known);
  }

  /** How many credentials were checked against the config (scrypt or token hash) so far. */
  get verifications(): number {
    return this.#verifications;
  }

  /** Verifies `credentials` sent from `remoteAddress` (the client's, see `clientAddress`), within the limits above. */
  async authenticate(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>, remoteAddress: string | undefined): Promise<AuthOutcome> {
    // JSON keeps the parts apart: no username/password split can produce another's key.
    const key = sha256(JSON.stringify(credentials.kind === 'basic'
      ? ['basic', credentials.username, credentials.password]
      : ['bearer', credentials.token])).toString('hex');
    const cached = this.#cache.get(key);
    if (cached) return this.#outcomeOf(cached);
    if (this.#failed.get(key)) return REFUSED;
    const running = this.#running.get(key);
    if (running) return this.#outcomeOf(await running);

    const address = addressKey(remoteAddress);
    // The user name is hashed into the key: it is the client's choice, of any length.
    const budgetKey = `${address} ${credentials.kind === 'basic' ? sha256(credentials.username).toString('hex').slice(0, 32) : 'bearer'}`;
    const counted = this.#known.get(key) === undefined;
    if (counted) {
      const budget = this.throttle.take(budgetKey);
      if (!budget.allowed) {
        this.#addressSlowed.note(() => `logins from ${address} are slowed down after repeated failures for one user name: one more attempt`
          + ` every ${this.refillMs} ms, 429 meanwhile`);
        return throttled('address', budget.retryAfterMs);
      }
    }
    const refund = () => {
      if (counted) this.throttle.refund(budgetKey);
    };
    const verify = () => this.#verify(credentials, key);
    const admission = credentials.kind === 'basic' || this.#scryptTokens
      ? this.verifier.submit(verify)
      : { admitted: true as const, result: verify() };
    if (!admission.admitted) {
      refund();
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
      refund();
      throw error;
    }
    // Only failures use up the attempts.
    if (principal) refund();
    return this.#outcomeOf(principal);
  }

  /** Verified, unless it is a token past its `expires` (checked on every request: a cached verification does not outlive it). */
  #outcomeOf(principal: Principal | undefined): AuthOutcome {
    if (principal?.expiresAt !== undefined && this.now() >= principal.expiresAt) return EXPIRED;
    return outcomeOf(principal);
  }

  async #verify(credentials: Extract<Credentials, { kind: 'basic' | 'bearer' }>, key: string): Promise<Principal | undefined> {
    this.#verifications += 1;
    const principal = credentials.kind === 'basic'
      ? await this.#basic(credentials.username, credentials.password)
      : await this.#bearer(credentials.token);
    if (principal) {
      this.#cache.set(key, principal);
      this.#known.set(key, true);
      this.log.debug(`verified ${credentials.kind} credentials of ${principal.label}`);
    } else {
      this.#failed.set(key, true);
      // No longer valid (a reload changed the password): from now on a guess like any other.
      this.#known.delete(key);
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
    return found && {
      label: `token:${found.name}`, role: found.role, token: found.name, ...(found.expiresAt === undefined ? {} : { expiresAt: found.expiresAt }),
    };
  }
}

function outcomeOf(principal: Principal | undefined): AuthOutcome {
  return principal ? { kind: 'verified', principal } : REFUSED;
}

function throttled(reason: 'address' | 'queue', retryAfterMs: number): AuthOutcome {
  return { kind: 'throttled', reason, retryAfterSeconds: Math.max(1, Math.ceil(retryAfterMs / 1000)) };
}
