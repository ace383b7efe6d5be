import type { CancelToken } from './cancellation.js';

interface Origin {
  active: number;
  /** What starts each waiting call, oldest first. */
  readonly waiting: (() => void)[];
}

/**
 * At most `limit` calls in flight per origin, as many as the agent keeps connections to it;
 * calls beyond wait here in FIFO order. Why not leave the waiting to the agent's own queue: a
 * call's time-out must count from when it is sent, not from when it was asked for. Hundreds of
 * instances behind one origin (a gateway, a test fleet) would otherwise time out in the queue,
 * and be reported OFFLINE for Vigil's own cap on connections, not for anything they did.
 */
export class OriginGate {
  readonly #origins = new Map<string, Origin>();

  constructor(private readonly limit: number) {}

  /**
   * Takes a place for a call to `origin`: undefined when one was free (the common case, no
   * promise made), else a promise that resolves when one frees up, or rejects when `cancel`
   * is cancelled first (the call then holds no place). Every admitted call must `leave` once.
   */
  enter(origin: string, cancel: CancelToken): Promise<void> | undefined {
    let state = this.#origins.get(origin);
    if (!state) {
      state = { active: 0, waiting: [] };
      this.#origins.set(origin, state);
    }
    if (state.active < this.limit) {
      state.active += 1;
      return undefined;
    }
    if (cancel.cancelled) return Promise.reject(new Error('aborted before it could wait for a connection'));
    const line = state.waiting;
    return new Promise<void>((resolve, reject) => {
      const admit = () => {
        unsubscribe();
        resolve();
      };
      const unsubscribe = cancel.onCancel(() => {
        const at = line.indexOf(admit);
        if (at >= 0) line.splice(at, 1);
        this.#forgetIfIdle(origin);
        reject(new Error('aborted while waiting for a connection'));
      });
      line.push(admit);
    });
  }

  /** Gives back the place of a call that ended: the next waiting call to the origin starts. */
  leave(origin: string): void {
    const state = this.#origins.get(origin);
    if (!state) return;
    const next = state.waiting.shift();
    if (next) next();
    else {
      state.active -= 1;
      this.#forgetIfIdle(origin);
    }
  }

  #forgetIfIdle(origin: string): void {
    const state = this.#origins.get(origin);
    if (state && state.active === 0 && state.waiting.length === 0) this.#origins.delete(origin);
  }
}

/**
 * The origin part of an absolute http(s) URL, by position rather than by parsing: this runs for
 * every call, and the URLs were validated at registration. Two spellings of one origin (an
 * explicit default port) count apart, which only lets that origin have twice the calls.
 */
export function originOf(url: string): string {
  const authority = url.indexOf('//');
  const end = url.indexOf('/', authority + 2);
  return end < 0 ? url : url.slice(0, end);
}
