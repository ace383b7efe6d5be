import type { Logger, SharedLog } from '../../core/plugin-api.js';
import { OccasionalWarning, messageOf } from '../../core/plugin-api.js';
import type { AuditEntry, AuditRecord } from './entry.js';
import type { FileSink } from './file-sink.js';
import { MemoryTrail } from './memory-trail.js';

/** How many entries one read of the shared log takes. */
const PAGE = 1000;

export type EntryListener = (entry: AuditEntry) => void;

/**
 * The audit trail: what `record` is given goes to this node's memory (what `GET /audit` reads),
 * to `audit.file`, and with a shared log (`cluster-redis`) to the one trail of the cluster, which
 * every node's memory follows. Recording never throws and never makes anyone wait: an entry that
 * cannot be kept somewhere is logged (at most once a minute) and counted.
 */
export class AuditTrail {
  readonly memory: MemoryTrail;
  readonly #listeners = new Set<EntryListener>();
  readonly #warning: OccasionalWarning;
  #lastId = 0;
  #failures = 0;
  #pulling: Promise<void> | undefined;
  #pullAgain = false;
  #shared: () => SharedLog | undefined;
  #sharedLog: SharedLog | null | undefined;

  constructor(
    maxEntries: number,
    private readonly log: Logger,
    private readonly file: FileSink | undefined,
    /** The cluster's shared log, asked for on first use (every plugin has provided its services by then). */
    shared: () => SharedLog | undefined,
  ) {
    this.#shared = shared;
    this.memory = new MemoryTrail(maxEntries);
    this.#warning = new OccasionalWarning(log, 60_000);
  }

  /** The shared log, or undefined in one process alone. */
  get shared(): SharedLog | undefined {
    if (this.#sharedLog === undefined) this.#sharedLog = this.#shared() ?? null;
    return this.#sharedLog ?? undefined;
  }

  /** Entries that could not be recorded somewhere (`vigil_audit_failures_total`). */
  get failures(): number {
    return this.#failures;
  }

  /** Called with every entry this node's memory takes, in id order (live streams). */
  listen(listener: EntryListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Records an entry; the returned promise settles once it is kept everywhere it can be (tests and shutdown wait on it). */
  record(entry: AuditRecord): Promise<void> {
    if (this.shared) return this.#recordShared(entry);
    // Microseconds since the epoch, or one more than the last: ids keep growing across restarts,
    // so a stream resumed after one never takes new entries for ones it has seen.
    this.#lastId = Math.max(Date.now() * 1000, this.#lastId + 1);
    const numbered: AuditEntry = { id: this.#lastId, ...entry };
    this.#take(numbered);
    return this.#toFile(numbered);
  }

  /**
   * Brings this node's memory up to the shared log: at start, on a timer, and before `GET /audit`
   * answers, so a node shows what another one recorded. One read at a time; a call during one
   * makes it read again once done.
   */
  pull(): Promise<void> {
    const shared = this.shared;
    if (!shared) return Promise.resolve();
    if (this.#pulling) {
      this.#pullAgain = true;
      return this.#pulling;
    }
    this.#pulling = (async () => {
      do {
        this.#pullAgain = false;
        await this.#pullOnce(shared);
      } while (this.#pullAgain);
    })().finally(() => {
      this.#pulling = undefined;
    });
    return this.#pulling;
  }

  async close(): Promise<void> {
    await this.#pulling?.catch(() => undefined);
    await this.file?.close();
  }

  async #recordShared(entry: AuditRecord): Promise<void> {
    let id: number | undefined;
    try {
      id = await this.shared!.append(JSON.stringify(entry));
    } catch (error) {
      this.#failed('the cluster\'s audit trail', error);
    }
    const written = this.#toFile({ id: id ?? 0, ...entry });
    if (id !== undefined) await this.pull().catch((error: unknown) => this.log.debug(`reading the cluster's audit trail failed: ${messageOf(error)}`));
    await written;
  }

  async #pullOnce(shared: SharedLog): Promise<void> {
    for (;;) {
      const page = await shared.after(this.memory.lastId, PAGE);
      for (const { position, value } of page) {
        try {
          this.#take({ id: position, ...(JSON.parse(value) as AuditRecord) });
        } catch {
          this.log.debug(`skipped a malformed audit entry at ${position}`);
        }
      }
      if (page.length < PAGE) return;
    }
  }

  #take(entry: AuditEntry): void {
    if (entry.id <= this.memory.lastId) return;
    this.memory.add(entry);
    for (const listener of this.#listeners) {
      try {
        listener(entry);
      } catch (error) {
        this.log.error(`an audit stream failed: ${messageOf(error)}`);
      }
    }
  }

  async #toFile(entry: AuditEntry): Promise<void> {
    if (!this.file) return;
    try {
      await this.file.write(entry);
    } catch (error) {
      this.#failed(`the audit file ${this.file.path}`, error);
    }
  }

  #failed(where: string, error: unknown): void {
    this.#failures += 1;
    this.#warning.note(() => `an audit entry could not be written to ${where}: ${messageOf(error)}`);
  }
}
