import type { Instance, InstanceEvent } from '../../core/domain/index.js';
import type { Logger, OutboxItem } from '../../core/plugin-api.js';
import type { NewEvent } from '../../core/event-log.js';
import { checkEvent, checkOutboxItem, checkSnapshot, type Checked } from './record-check.js';
import type { RecordKind, RecordSeal } from './record-seal.js';

/** Refusals logged one by one in a minute; beyond, they are counted and the count logged with the next one after the minute. */
const LINES_PER_MINUTE = 20;
const MINUTE_MS = 60_000;

/**
 * The form of the records a node writes to Redis and the gate of those it reads: events and
 * snapshots are sealed on the way in (`RecordSeal`, with a secret key), and on the way out
 * opened, parsed and checked (`record-check`); a record that fails any step is refused, logged
 * with why, and left out, so nothing in Redis can crash a node or register what the API refuses.
 */
export class RecordCodec {
  #windowStart = 0;
  #logged = 0;
  #unlogged = 0;
  #lastClearWarning = 0;

  constructor(private readonly seal: RecordSeal, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /**
   * The event as written. One this node could not read back is refused here (a plugin's command
   * that made something the API would refuse): written, it would be refused by every node, this
   * one included, and the instance would stop at its version.
   */
  writeEvent(event: NewEvent): string {
    const checked = checkEvent(event, event.instance, 0);
    if (!checked.ok) throw new Error(`refusing to record an event of ${event.instance} that no node would accept: ${checked.problem}`);
    return this.seal.seal('event', event.instance, JSON.stringify(event));
  }

  writeSnapshot(instance: Instance): string {
    return this.seal.seal('snapshot', instance.id, JSON.stringify(instance));
  }

  /** An event read from `where` (the change feed, an instance's history), or undefined when refused. */
  readEvent(text: string | undefined, id: string | undefined, seq: number, where: string): InstanceEvent | undefined {
    if (id === undefined || id === '' || !Number.isSafeInteger(seq) || seq < 1) return this.#refused(`an entry of ${where}`, 'it lacks its instance id or sequence number');
    return this.#read('event', text, id, `the event of ${id} at seq ${seq} in ${where}`, (value) => checkEvent(value, id, seq));
  }

  /** The snapshot filed under `id`, or undefined when refused. */
  readSnapshot(text: string | undefined, id: string): Instance | undefined {
    return this.#read('snapshot', text, id, `the snapshot of ${id}`, (value) => checkSnapshot(value, id));
  }

  /** An item of the notification outbox (its stream entry `entry`), or undefined when refused. */
  readOutboxItem(fields: Readonly<Record<string, string>>, entry: string): OutboxItem | undefined {
    const checked = checkOutboxItem(fields);
    return checked.ok ? checked.value : this.#refused(`the notification item ${entry}`, checked.problem);
  }

  #read<T>(kind: RecordKind, text: string | undefined, id: string, what: string, check: (value: unknown) => Checked<T>): T | undefined {
    if (text === undefined) return this.#refused(what, 'it is empty');
    const opened = this.seal.open(kind, id, text);
    if (!opened.ok) return this.#refused(what, opened.reason);
    let value: unknown;
    try {
      value = JSON.parse(opened.json);
    } catch {
      return this.#refused(what, 'it is not valid JSON');
    }
    const checked = check(value);
    if (!checked.ok) return this.#refused(what, checked.problem);
    if (!opened.sealed && this.seal.enabled) this.#clearWhileSealing(what);
    return checked.value;
  }

  /** Logged, within a budget a minute: a Redis full of bad records must not flood the log. */
  #refused(what: string, why: string): undefined {
    const now = this.now();
    if (now - this.#windowStart >= MINUTE_MS) {
      if (this.#unlogged > 0) this.log.warn(`${this.#unlogged} more record(s) read from Redis were refused in the last minute (not logged one by one)`);
      this.#windowStart = now;
      this.#logged = 0;
      this.#unlogged = 0;
    }
    if (this.#logged < LINES_PER_MINUTE) {
      this.#logged += 1;
      this.log.warn(`refused ${what} read from Redis: ${why}; it is left out`);
    } else {
      this.#unlogged += 1;
    }
    return undefined;
  }

  /** Records in clear are read (a cluster that adds a key keeps its history), and said once a minute. */
  #clearWhileSealing(what: string): void {
    const now = this.now();
    if (now - this.#lastClearWarning < MINUTE_MS) return;
    this.#lastClearWarning = now;
    this.log.warn(`${what} is in clear although cluster-redis.secret-key is set: it was written before the key was, or by a node without it (give every node the same key); it is read, and what this node writes from now on is sealed`);
  }
}
