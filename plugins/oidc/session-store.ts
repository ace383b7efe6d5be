import type { SharedMap } from '../../core/plugin-api.js';
import { newSecretId, seal, storageKeyOf, unseal } from './sealed.js';

/** What Vigil keeps of a signed-in person, server-side. */
export interface SessionRecord {
  readonly name: string;
  readonly groups: readonly string[];
  /** The provider's subject, to check that a renewal is still the same person. */
  readonly sub: string;
  readonly createdAt: number;
  readonly lastSeenAt: number;
  /** The last ID token: the `id_token_hint` of the provider's sign-out. */
  readonly idToken?: string;
  /** Renews the provider's tokens (and so the groups) before they expire. */
  readonly refreshToken?: string;
  /** When the provider's access token expires: the session renews shortly before. */
  readonly tokensExpireAt?: number;
}

export interface SessionLimits {
  /** The absolute lifetime (`session.ttl`). */
  readonly ttlMs: number;
  /** The idle timeout (`session.idle-timeout`). */
  readonly idleMs: number;
}

/** A live session: its id (the cookie's value) and record. */
export interface Session {
  readonly id: string;
  readonly record: SessionRecord;
}

/**
 * Sessions in `SHARED_STATE` (in this process, or in Redis with `cluster-redis`, so any node
 * serves any session), each sealed under its id (see sealed.ts) and stored until it idles out or
 * reaches its lifetime, whichever is first.
 *
 * Ending a session leaves a marker beside deleting it: the shared map has no compare-and-set, so
 * another node that read the session just before and writes its "last seen" just after would
 * bring it back. A session with a marker is over, whatever its record says.
 */
export class SessionStore {
  constructor(
    private readonly sessions: () => SharedMap,
    private readonly ended: () => SharedMap,
    private readonly limits: () => SessionLimits,
    private readonly now: () => number,
  ) {}

  /** Stores a new session (a new id: never one the browser had before) and returns it. */
  async create(record: Omit<SessionRecord, 'createdAt' | 'lastSeenAt'>): Promise<Session> {
    const now = this.now();
    const session = { id: newSecretId(), record: { ...record, createdAt: now, lastSeenAt: now } };
    await this.#write(session);
    return session;
  }

  /**
   * The session with this id while it lives, its "last seen" moved on (written at most once a
   * minute or a tenth of the idle timeout, not on every request); undefined once it idled out,
   * reached its lifetime, was ended, or never was.
   */
  async read(id: string): Promise<Session | undefined> {
    const record = await this.#live(id);
    if (!record) return undefined;
    const now = this.now();
    const session = { id, record };
    if (now - record.lastSeenAt < Math.min(60_000, this.limits().idleMs / 10)) return session;
    const touched = { id, record: { ...record, lastSeenAt: now } };
    await this.#write(touched);
    return touched;
  }

  /** Whether the session with this id lives, without counting this as its use (a stream's check). */
  async isLive(id: string): Promise<boolean> {
    return (await this.#live(id)) !== undefined;
  }

  /** The record of a live session (dropped from the store once it is over), or undefined. */
  async #live(id: string): Promise<SessionRecord | undefined> {
    const key = storageKeyOf(id);
    const [sealed, ended] = await Promise.all([this.sessions().get(key), this.ended().get(key)]);
    if (sealed === undefined || ended !== undefined) return undefined;
    const record = recordOf(unseal(id, sealed));
    if (!record) return undefined;
    const now = this.now();
    const { ttlMs, idleMs } = this.limits();
    if (now < record.createdAt + ttlMs && now < record.lastSeenAt + idleMs) return record;
    await this.sessions().delete(key);
    return undefined;
  }

  /** Replaces a live session's record (renewed tokens and groups); same id. */
  async update(session: Session): Promise<void> {
    await this.#write(session);
  }

  /** Ends the session: it is gone on every node, and no late write brings it back. */
  async end(id: string): Promise<void> {
    const key = storageKeyOf(id);
    await this.ended().set(key, '1', this.limits().ttlMs);
    await this.sessions().delete(key);
  }

  /**
   * Forgets expired entries: an in-memory map drops them only when read, and in Redis the
   * shared map's index of keys keeps their names until its entries are listed.
   */
  async sweep(): Promise<void> {
    await this.sessions().entries();
    await this.ended().entries();
  }

  async #write(session: Session): Promise<void> {
    const { ttlMs, idleMs } = this.limits();
    const { record } = session;
    const left = Math.min(record.lastSeenAt + idleMs, record.createdAt + ttlMs) - this.now();
    await this.sessions().set(storageKeyOf(session.id), seal(session.id, record), Math.max(1, left));
  }
}

function recordOf(value: unknown): SessionRecord | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Partial<SessionRecord>;
  const valid = typeof record.name === 'string' && typeof record.sub === 'string' && Array.isArray(record.groups)
    && typeof record.createdAt === 'number' && typeof record.lastSeenAt === 'number';
  return valid ? record as SessionRecord : undefined;
}
