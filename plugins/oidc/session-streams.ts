import type { ServerResponse } from 'node:http';
import type { Logger } from '../../core/plugin-api.js';
import { storageKeyOf } from './sealed.js';
import type { SessionStore } from './session-store.js';

/**
 * Event streams opened with a session: a stream outlives the request that checked the session,
 * so without this a tab signed out elsewhere (or idle past its timeout) would go on receiving
 * events for hours. A stream ends at once when its session is ended on this node, and within
 * `checkEveryMs` when it ends any other way (another node, idle timeout, ttl, renewal refused):
 * the dashboard's reconnect is then refused, and it sends the browser to sign in.
 */
export class SessionStreams {
  /** Open streams by the session's storage key (never its id), with the id to check it by. */
  readonly #open = new Map<string, { readonly id: string; readonly responses: Set<ServerResponse> }>();
  #timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly store: SessionStore,
    private readonly log: Logger,
    private readonly checkEveryMs: number,
  ) {}

  /** How many streams are open with a session. */
  get size(): number {
    let size = 0;
    for (const entry of this.#open.values()) size += entry.responses.size;
    return size;
  }

  /** Follows a stream the session `id` opened, until it closes. */
  watch(id: string, res: ServerResponse): void {
    const key = storageKeyOf(id);
    let entry = this.#open.get(key);
    if (!entry) this.#open.set(key, (entry = { id, responses: new Set() }));
    const { responses } = entry;
    responses.add(res);
    res.once('close', () => {
      responses.delete(res);
      if (responses.size === 0 && this.#open.get(key)?.responses === responses) this.#open.delete(key);
    });
  }

  /** Ends every stream of the session `id` (it was just ended here). */
  end(id: string): void {
    const entry = this.#open.get(storageKeyOf(id));
    if (!entry) return;
    this.log.debug(`ending ${entry.responses.size} event stream(s) of a session that ended`);
    // The socket, not the response: the plugin writing the stream sees it close, as when a client leaves.
    for (const res of entry.responses) res.socket?.destroy();
  }

  /** Checks every session with open streams, without counting it as use, and ends the streams of those that are over. */
  async check(): Promise<void> {
    for (const [key, entry] of [...this.#open]) {
      if (this.#open.get(key) !== entry) continue;
      if (await this.store.isLive(entry.id)) continue;
      this.end(entry.id);
    }
  }

  start(): void {
    this.#timer = setInterval(() => {
      this.check().catch((error: unknown) => this.log.debug(`could not check the sessions of open streams: ${String(error)}`));
    }, this.checkEveryMs);
    this.#timer.unref();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
  }
}
