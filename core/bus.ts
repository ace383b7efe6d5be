import { Fifo } from './fifo.js';
import type { Instance, InstanceEvent } from './store/types.js';
import type { Principal } from './contract/principal.js';

/** What `instance.changed` carries: the recorded event and the instance before and after it. */
export interface InstanceChange {
  readonly event: InstanceEvent;
  readonly instance: Instance;
  readonly previous: Instance;
}

/**
 * The events on the bus, by name. Plugins add their own through declaration merging:
 * `declare module 'vigil/plugin' { interface BusEvents { 'my-plugin.thing-happened': Payload } }`.
 */
export interface BusEvents {
  /**
   * An event was appended to an instance's history and applied to this node's copy. Posted
   * (`post`): handlers run after the write that recorded it has returned control, never inside
   * it, one event to every handler before the next, in `seq` order, including events a handler
   * records itself. By then the copy holds the event (and possibly later ones).
   */
  'instance.changed': InstanceChange;
  /**
   * `POST /applications` (or anything else) asked every instance to be re-checked and discovery
   * to re-run. In a cluster every node gets it (`remote`: it came from another node).
   */
  'instances.refresh-requested': { readonly reason: string; readonly remote?: boolean };
  /**
   * The event log replaced this node's whole state (it reloaded after a gap, or its store came
   * back empty): snapshots changed without an `instance.changed` each. Re-read what you keep.
   */
  'instances.reloaded': { readonly instances: number };
  /**
   * Which instances this node owns (`OWNERSHIP`) may have changed: nodes joined or left. When a
   * node died (it did not leave on purpose), `lostContactSince` is the earliest instant since
   * which its instances may have gone unchecked: checks that fell due since then are made at once.
   */
  'instances.ownership-changed': { readonly lostContactSince?: number };
  /** A person began a session (single sign-on), from `address`: for the audit trail. */
  'principal.signed-in': { readonly principal: Principal; readonly address: string | null };
  /** A session was ended by its person (`POST /logout`). */
  'principal.signed-out': { readonly principal: Principal; readonly address: string | null };
  /** A sign-in through a session-making plugin failed (the provider refused, or the answer did not check out). */
  'principal.sign-in-failed': { readonly via: Principal['via']; readonly address: string | null; readonly user?: string; readonly reason: string };
  /** The config was reloaded (SIGHUP): which keys applied, which need a restart, which a plugin refused. Never values. */
  'config.reloaded': { readonly applied: readonly string[]; readonly restart: readonly string[]; readonly failed: readonly string[] };
}

export type BusHandler<T> = (payload: T) => void | Promise<void>;

/** An event posted and not yet delivered. */
interface Posted {
  readonly name: keyof BusEvents;
  readonly payload: BusEvents[keyof BusEvents];
}

/**
 * A typed event bus. Handlers run in subscription order; one that throws or rejects is reported
 * and never stops the others nor ends its own subscription (as SBA's triggers keep working after
 * errors). `emit` runs them at once, in the caller's stack; `post` queues the event and runs them
 * from one place once the caller's stack has unwound, in the order posted.
 */
export class EventBus {
  readonly #handlers = new Map<string, Set<BusHandler<never>>>();
  readonly #posted = new Fifo<Posted>();
  #draining = false;

  constructor(private readonly onHandlerError: (name: string, error: unknown) => void) {}

  /** Subscribes; returns the function that unsubscribes. */
  on<K extends keyof BusEvents>(name: K, handler: BusHandler<BusEvents[K]>): () => void {
    const set = this.#handlers.get(name) ?? new Set();
    set.add(handler as BusHandler<never>);
    this.#handlers.set(name, set);
    return () => set.delete(handler as BusHandler<never>);
  }

  emit<K extends keyof BusEvents>(name: K, payload: BusEvents[K]): void {
    const set = this.#handlers.get(name);
    if (!set) return;
    for (const handler of [...set]) {
      try {
        const result = (handler as BusHandler<BusEvents[K]>)(payload);
        if (result instanceof Promise) result.catch((error: unknown) => this.onHandlerError(name, error));
      } catch (error) {
        this.onHandlerError(name, error);
      }
    }
  }

  /**
   * Delivers `payload` a microtask later, after what was posted before it. Every handler gets
   * one posted event before any gets the next, even when a handler posts (or writes) from inside:
   * that event waits its turn instead of overtaking the one being delivered.
   */
  post<K extends keyof BusEvents>(name: K, payload: BusEvents[K]): void {
    this.#posted.push({ name, payload });
    if (!this.#draining) this.#drainSoon();
  }

  #drainSoon(): void {
    this.#draining = true;
    queueMicrotask(() => this.#drain());
  }

  #drain(): void {
    try {
      for (let posted = this.#posted.shift(); posted !== undefined; posted = this.#posted.shift()) this.emit(posted.name, posted.payload);
    } finally {
      // Only a throwing error reporter ends a drain early: what is left goes out next time.
      this.#draining = false;
      if (this.#posted.size > 0) this.#drainSoon();
    }
  }

  /** How many handlers listen to `name`. */
  listenerCount(name: keyof BusEvents): number {
    return this.#handlers.get(name)?.size ?? 0;
  }
}
