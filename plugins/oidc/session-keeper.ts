import * as client from 'openid-client';
import type { Logger } from '../../core/plugin-api.js';
import type { ClaimReader, Identity } from './identity.js';
import { describe, type IdentityProvider, type Tokens } from './provider.js';
import { storageKeyOf } from './sealed.js';
import type { Session, SessionRecord, SessionStore } from './session-store.js';
import type { SessionStreams } from './session-streams.js';

/** Renew this long before the provider's tokens expire. */
const RENEW_BEFORE_MS = 60_000;
/** After a renewal failed because the provider was away, wait this long before the next try. */
const RETRY_RENEWAL_MS = 30_000;
/** Sessions whose renewal is waiting to be retried, remembered at most (oldest forgotten first). */
const MAX_RETRYING = 10_000;

/**
 * Keeps sessions current: reads them, and renews the provider's tokens with the refresh token
 * shortly before they expire, re-reading the groups as it does. A provider that refuses the
 * renewal (the person was disabled, the refresh token revoked) ends the session; a provider that
 * cannot be reached does not: the session lives on until its own ttl or idle timeout.
 */
export class SessionKeeper {
  /** One renewal per session at a time on this node: refresh tokens are often single-use. */
  readonly #renewing = new Map<string, Promise<Session | undefined>>();
  /** When a session whose renewal failed for want of the provider may try again. */
  readonly #retryAt = new Map<string, number>();

  constructor(
    private readonly store: SessionStore,
    private readonly provider: IdentityProvider,
    private readonly claims: ClaimReader,
    private readonly streams: SessionStreams,
    private readonly log: Logger,
    private readonly now: () => number,
  ) {}

  /** The live session with this id, renewed first when its tokens are about to expire. */
  async current(id: string): Promise<Session | undefined> {
    const session = await this.store.read(id);
    if (!session || !this.#due(session.record)) return session;
    const key = storageKeyOf(id);
    if ((this.#retryAt.get(key) ?? -Infinity) > this.now()) return session;
    let renewal = this.#renewing.get(key);
    if (!renewal) {
      renewal = this.#renew(session).finally(() => this.#renewing.delete(key));
      this.#renewing.set(key, renewal);
    }
    return renewal;
  }

  /** The live session with this id as it is, not renewed (about to be ended). */
  async read(id: string): Promise<Session | undefined> {
    return this.store.read(id);
  }

  /** A new session for who signed in, ending the one the browser had (a new id at every sign-in). */
  async begin(identity: Identity, tokens: Tokens, previousId: string | undefined): Promise<Session> {
    if (previousId !== undefined) await this.end(previousId);
    return this.store.create({ name: identity.name, groups: identity.groups, sub: identity.sub, ...this.#tokenFields(tokens, undefined) });
  }

  /** Ends the session with this id, on every node, and its event streams on this one (the others notice within their check). */
  async end(id: string): Promise<void> {
    await this.store.end(id);
    this.streams.end(id);
  }

  /** Forgets expired sessions (see `SessionStore.sweep`). */
  async sweep(): Promise<void> {
    await this.store.sweep();
  }

  #due(record: SessionRecord): boolean {
    return record.refreshToken !== undefined && record.tokensExpireAt !== undefined && this.now() >= record.tokensExpireAt - RENEW_BEFORE_MS;
  }

  async #renew(session: Session): Promise<Session | undefined> {
    const { record } = session;
    const key = storageKeyOf(session.id);
    let identity: Identity;
    let tokens: Tokens;
    try {
      tokens = await this.provider.refresh(record.refreshToken!);
      identity = await this.claims.fromTokens(tokens, this.provider, record);
    } catch (error) {
      if (error instanceof client.ResponseBodyError) {
        this.log.info(`session of ${record.name} ended: the identity provider refused to renew it (${describe(error)})`);
        await this.end(session.id);
        return undefined;
      }
      this.log.warn(`cannot renew the session of ${record.name} now; it goes on until its ttl or idle timeout: ${describe(error)}`);
      this.#retryAt.delete(key);
      this.#retryAt.set(key, this.now() + RETRY_RENEWAL_MS);
      if (this.#retryAt.size > MAX_RETRYING) this.#retryAt.delete(this.#retryAt.keys().next().value as string);
      return session;
    }
    this.#retryAt.delete(key);
    if (identity.sub !== record.sub) {
      this.log.warn(`session of ${record.name} ended: its renewal named another subject`);
      await this.end(session.id);
      return undefined;
    }
    const renewed: Session = {
      id: session.id,
      record: { ...record, name: identity.name, groups: identity.groups, ...this.#tokenFields(tokens, record) },
    };
    await this.store.update(renewed);
    this.log.debug(`session of ${renewed.record.name} renewed`);
    return renewed;
  }

  /** The tokens a session keeps: the ID token (the sign-out hint), the refresh token and the expiry. */
  #tokenFields(tokens: Tokens, previous: SessionRecord | undefined): Pick<SessionRecord, 'idToken' | 'refreshToken' | 'tokensExpireAt'> {
    const idToken = tokens.id_token ?? previous?.idToken;
    // A provider that rotates refresh tokens sends a new one; one that does not keeps the old valid.
    const refreshToken = tokens.refresh_token ?? previous?.refreshToken;
    const expiresIn = tokens.expiresIn();
    return {
      ...(idToken === undefined ? {} : { idToken }),
      ...(refreshToken === undefined ? {} : { refreshToken }),
      ...(expiresIn === undefined || refreshToken === undefined ? {} : { tokensExpireAt: this.now() + expiresIn * 1000 }),
    };
  }
}
