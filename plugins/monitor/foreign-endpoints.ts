import type { Endpoint, Instance } from '../../core/domain/index.js';
import type { Logger } from '../../core/plugin-api.js';

/** How many refusals are remembered as already logged; past it the memory starts over (a line may repeat). */
const REMEMBERED = 10_000;

/**
 * Keeps an instance's detected endpoints on its own origins: the management URL's, or the health
 * URL's. An actuator index is written by the instance, and without this it could point `info`
 * (or any endpoint) at another host, which Vigil would then poll and proxy and whose answers it
 * would show as the instance's own (SSRF through the monitor). `monitor.allow-foreign-endpoints`
 * lets an operator who runs such set-ups on purpose turn the check off; credentials still go to
 * the instance's own origins only (the kernel's outbound policy).
 */
export class ForeignEndpointFilter {
  readonly #logged = new Set<string>();

  constructor(private allowForeign: boolean, private readonly log: Logger) {}

  /** `monitor.allow-foreign-endpoints` changed (reload): applies from the next detection. */
  reconfigure(allowForeign: boolean): void {
    this.allowForeign = allowForeign;
  }

  /** The endpoints that may be used; each refused one is logged once. */
  filter(instance: Instance, endpoints: readonly Endpoint[]): Endpoint[] {
    const registration = instance.registration;
    if (this.allowForeign || !registration || endpoints.length === 0) return [...endpoints];
    const base = registration.managementUrl ?? registration.healthUrl;
    const own = new Set([originOf(registration.healthUrl), registration.managementUrl ? originOf(registration.managementUrl) : undefined]);
    own.delete(undefined);
    return endpoints.filter((endpoint) => {
      const origin = originOf(endpoint.url, base);
      if (origin !== undefined && own.has(origin)) return true;
      this.#refused(instance.id, endpoint, origin);
      return false;
    });
  }

  #refused(id: string, endpoint: Endpoint, origin: string | undefined): void {
    const key = `${id} ${endpoint.id} ${origin ?? '?'}`;
    if (this.#logged.has(key)) return;
    if (this.#logged.size >= REMEMBERED) this.#logged.clear();
    this.#logged.add(key);
    const where = origin ?? 'an unusable URL';
    this.log.warn(`endpoint "${endpoint.id}" of ${id} points at ${where}, not the instance's own origin: not used (monitor.allow-foreign-endpoints)`);
  }
}

function originOf(url: string, base?: string): string | undefined {
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : undefined;
  } catch {
    return undefined;
  }
}
