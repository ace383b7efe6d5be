import { SHARED_STATE, StoreUnavailableError, messageOf, type Logger, type Services, type SharedMap } from '../../core/plugin-api.js';
import { type HealthGroups } from '../../core/kits/services/index.js';

/**
 * The `HEALTH_GROUPS` service: the groups of each instance's last health body, kept in
 * `SHARED_STATE` so every node of a cluster answers the same, whichever node polls the instance.
 * Each node remembers what it last wrote, so an unchanged list (every check, as a rule) costs no
 * write. Shared state is looked up on first use: the kernel provides it only after every setup.
 */
export class HealthGroupsCache implements HealthGroups {
  /** What this node last wrote per instance, as JSON. */
  readonly #written = new Map<string, string>();
  #map: SharedMap | undefined;

  constructor(private readonly services: Services, private readonly log: Logger) {}

  async groupsOf(id: string): Promise<readonly string[]> {
    const stored = await this.#shared().get(id);
    return stored === undefined ? [] : (JSON.parse(stored) as string[]);
  }

  /** Records a health body's groups; `undefined` (no `groups` in the body) keeps what is there. */
  record(id: string, groups: readonly string[] | undefined): void {
    if (groups === undefined) return;
    const json = JSON.stringify(groups);
    if (this.#written.get(id) === json) return;
    this.#written.set(id, json);
    this.#shared().set(id, json).catch((error: unknown) => this.#failed(id, error));
  }

  /** The instance deregistered: its groups go (SBA's HealthGroupsCacheCleanupListener). */
  forget(id: string): void {
    this.#written.delete(id);
    this.#shared().delete(id).catch((error: unknown) => this.#failed(id, error));
  }

  #shared(): SharedMap {
    return (this.#map ??= this.services.use(SHARED_STATE)!.map('monitor.health-groups'));
  }

  #failed(id: string, error: unknown): void {
    // Written again with the next check that sees the groups.
    this.#written.delete(id);
    if (!(error instanceof StoreUnavailableError)) this.log.warn(`health groups of ${id} not stored: ${messageOf(error)}`);
  }
}

/** The distinct strings of a health body's `groups` array; undefined when it has no array there. */
export function groupsOfBody(body: Record<string, unknown> | undefined): string[] | undefined {
  const groups = body?.groups;
  if (!Array.isArray(groups)) return undefined;
  return [...new Set(groups.filter((group): group is string => typeof group === 'string'))];
}
