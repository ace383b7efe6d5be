import { VigilError } from './errors.js';
import type { ServiceToken, Services } from './plugin-api.js';

interface Contribution {
  readonly value: unknown;
  readonly rank: number;
  readonly sequence: number;
}

/**
 * Typed services between plugins. The kernel stores values per token key and knows nothing of
 * what they mean; contributions are ordered by the contributing plugin's place in `plugins:`.
 */
export class ServiceRegistry {
  readonly #provided = new Map<string, { value: unknown; by: string }>();
  readonly #contributions = new Map<string, Contribution[]>();
  #sequence = 0;

  /** Provides `value` unless a plugin already did: the kernel's defaults, set once every plugin has set up. */
  provideDefault<T>(token: ServiceToken<T>, value: T): void {
    if (!this.#provided.has(token.key)) this.#provided.set(token.key, { value, by: 'kernel' });
  }

  /** The view one plugin gets: its contributions carry its rank. */
  forPlugin(name: string, rank: number): Services {
    return {
      provide: <T>(token: ServiceToken<T>, value: T) => {
        const existing = this.#provided.get(token.key);
        if (existing) {
          throw new VigilError('ERR_SERVICE_DUPLICATE', `service "${token.key}" is provided by both "${existing.by}" and "${name}"`);
        }
        this.#provided.set(token.key, { value, by: name });
      },
      use: <T>(token: ServiceToken<T>) => this.#provided.get(token.key)?.value as T | undefined,
      contribute: <T>(token: ServiceToken<T>, value: T) => {
        const list = this.#contributions.get(token.key) ?? [];
        list.push({ value, rank, sequence: this.#sequence++ });
        this.#contributions.set(token.key, list);
      },
      collect: <T>(token: ServiceToken<T>) =>
        [...(this.#contributions.get(token.key) ?? [])]
          .sort((a, b) => a.rank - b.rank || a.sequence - b.sequence)
          .map((entry) => entry.value as T),
    };
  }
}
