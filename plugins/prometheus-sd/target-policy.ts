import type { Logger, Outbound } from '../../core/plugin-api.js';
import { mapLimit } from '../../core/kits/runtime/index.js';

/** How long a verdict on a host is reused: Prometheus asks every 30 s by default, each answer needs every host. */
const VERDICT_TTL_MS = 30_000;
/** Look-ups in flight at once: they run on the threadpool that scrypt and file reads use too. */
const LOOKUPS_AT_ONCE = 8;
/** A bound on remembered hosts; past it the memory is dropped whole and rebuilt. */
const MAX_VERDICTS = 100_000;

interface Verdict {
  readonly permitted: boolean;
  readonly until: number;
}

/**
 * Whether the outbound policy lets Vigil call each target's host (`ssrf-protection`): a target
 * Vigil may not call is not handed to Prometheus either, which would call it with its own scrape
 * credentials. Verdicts are kept for a while per `scheme://host`, so a fleet's answer costs a
 * look-up per host and period, not per request.
 */
export class TargetPolicy {
  readonly #verdicts = new Map<string, Verdict>();
  readonly #pending = new Map<string, Promise<boolean>>();

  constructor(private readonly outbound: Outbound, private readonly log: Logger, private readonly now: () => number = Date.now) {}

  /** Resolves with a test for the keys (`scheme://host`) given: true when Vigil may call that host. */
  async permitted(keys: Iterable<string>): Promise<(key: string) => boolean> {
    const now = this.now();
    const answers = new Map<string, boolean>();
    const unknown: string[] = [];
    for (const key of keys) {
      if (answers.has(key)) continue;
      const verdict = this.#verdicts.get(key);
      if (verdict && verdict.until > now) {
        answers.set(key, verdict.permitted);
      } else {
        answers.set(key, false);
        unknown.push(key);
      }
    }
    await mapLimit(unknown, LOOKUPS_AT_ONCE, async (key) => answers.set(key, await this.#decide(key)));
    return (key) => answers.get(key) === true;
  }

  #decide(key: string): Promise<boolean> {
    let pending = this.#pending.get(key);
    if (!pending) {
      pending = this.outbound.refusalOf(`${key}/`)
        .catch((error: unknown) => (error instanceof Error ? error : new Error(String(error))))
        .then((refusal) => {
          if (this.#verdicts.size >= MAX_VERDICTS) this.#verdicts.clear();
          this.#verdicts.set(key, { permitted: refusal === undefined, until: this.now() + VERDICT_TTL_MS });
          if (refusal) this.log.debug(`targets on ${key} are not listed: ${refusal.message}`);
          return refusal === undefined;
        })
        .finally(() => this.#pending.delete(key));
      this.#pending.set(key, pending);
    }
    return pending;
  }
}
