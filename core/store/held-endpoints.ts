import type { Endpoint, Registration } from './types.js';

/**
 * An endpoint at `<managementUrl>/<id>`, as nearly every actuator index lists them, held as those
 * two strings rather than a URL of its own: a node holds every instance's endpoints for as long
 * as it is registered, and their URLs were most of its per-instance memory (bench/REPORT.md,
 * memory per instance). `url` is built when read; `toJSON` keeps the wire form `{id, url}`. The
 * management URL sits in a private field, so a spread (`{...endpoint}`) copies only `id`.
 */
class ManagementEndpoint implements Endpoint {
  readonly #base: string;

  constructor(base: string, readonly id: string) {
    this.#base = base;
  }

  get url(): string {
    return `${this.#base}/${this.id}`;
  }

  toJSON(): Endpoint {
    return { id: this.id, url: this.url };
  }
}

/** Endpoint ids are a few names shared by every instance; one string each, up to this many. */
const MAX_SHARED_IDS = 512;
const sharedIds = new Map<string, string>();

function sharedId(id: string): string {
  const known = sharedIds.get(id);
  if (known !== undefined) return known;
  if (sharedIds.size < MAX_SHARED_IDS) sharedIds.set(id, id);
  return id;
}

/**
 * Endpoints as a node holds them: an array of exactly their number; one under the registration's
 * management URL as a ManagementEndpoint, one at its health URL with the registration's own
 * string, any other as a plain `{id, url}`. Reading `url` gives the same text as before.
 */
export function heldEndpoints(endpoints: readonly Endpoint[], registration: Pick<Registration, 'managementUrl' | 'healthUrl'> | null): readonly Endpoint[] {
  const managementUrl = registration?.managementUrl ?? null;
  const healthUrl = registration?.healthUrl;
  return endpoints.map(({ id, url }) => {
    if (managementUrl !== null && isUnder(url, managementUrl, id)) return new ManagementEndpoint(managementUrl, sharedId(id));
    return { id: sharedId(id), url: url === healthUrl ? healthUrl : url };
  });
}

/** Endpoints at `<base>/<id>` for each id, as `heldEndpoints` holds them (a compact snapshot's, built when read). */
export function endpointsUnder(base: string, ids: readonly string[]): readonly Endpoint[] {
  return ids.map((id) => new ManagementEndpoint(base, id));
}

/** `url` is exactly `${base}/${id}`, checked without building that string. */
function isUnder(url: string, base: string, id: string): boolean {
  return url.length === base.length + 1 + id.length && url.charCodeAt(base.length) === 0x2f && url.startsWith(base) && url.endsWith(id);
}
