import { storedEvent } from './event-shape.js';
import type { Endpoint, Instance, InstanceEvent, Registration } from './types.js';

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

  /** Whether it is held under `base` (its URL is `${base}/${id}`). */
  isUnder(base: string): boolean {
    return this.#base === base;
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

/** Endpoint id lists are the same for the instances of one application: one frozen array each, up to this many. */
const MAX_SHARED_LISTS = 256;
const sharedLists = new Map<string, readonly string[]>();

function sharedList(ids: readonly string[]): readonly string[] {
  const key = ids.join('\n');
  const known = sharedLists.get(key);
  if (known) return known;
  const list = Object.freeze([...ids]);
  if (sharedLists.size < MAX_SHARED_LISTS) sharedLists.set(key, list);
  return list;
}

/** The endpoints' ids, one list shared by all that list the same, when every one is at `<base>/<id>`; otherwise undefined. */
export function endpointIdsUnder(endpoints: readonly Endpoint[], base: string | null): readonly string[] | undefined {
  if (!base || endpoints.length === 0) return undefined;
  const ids: string[] = [];
  for (const endpoint of endpoints) {
    // One held under this URL already says so; reading its `url` would build the string.
    const under = endpoint instanceof ManagementEndpoint ? endpoint.isUnder(base) : isUnder(endpoint.url, base, endpoint.id);
    if (!under) return undefined;
    ids.push(endpoint.id);
  }
  return sharedList(ids);
}

type EndpointsDetected = Extract<InstanceEvent, { type: 'ENDPOINTS_DETECTED' }>;

/**
 * An ENDPOINTS_DETECTED event whose endpoints are all at `<managementUrl>/<id>`, as a node holds
 * it: that URL and the shared list of ids, its endpoints built when read, as a compact snapshot
 * holds them (the snapshot and the event would otherwise share ten objects per instance, the
 * largest part of an instance a node checks; bench/REPORT.md). Its other fields are its own and
 * `toJSON` gives the plain event, in storedEvent's order. A spread copies no endpoints.
 */
class EndpointsDetectedUnder implements EndpointsDetected {
  readonly type = 'ENDPOINTS_DETECTED';
  readonly instance: string;
  readonly version: number;
  readonly timestamp: string;
  readonly seq: number;
  readonly #base: string;
  readonly #ids: readonly string[];

  constructor(event: EndpointsDetected, base: string, ids: readonly string[]) {
    this.instance = event.instance;
    this.version = event.version;
    this.timestamp = event.timestamp;
    this.seq = event.seq;
    this.#base = base;
    this.#ids = ids;
    Object.freeze(this);
  }

  get endpoints(): readonly Endpoint[] {
    return endpointsUnder(this.#base, this.#ids);
  }

  toJSON(): EndpointsDetected {
    return { type: this.type, instance: this.instance, version: this.version, timestamp: this.timestamp, seq: this.seq, endpoints: this.endpoints };
  }
}

/**
 * `event` held with the fewest objects for its endpoints: as EndpointsDetectedUnder when all are at
 * `<managementUrl>/<id>`; otherwise with `heldEndpoints`, or as the snapshot's (which it then
 * shares) when those are the same endpoints. Every other event is returned as it is.
 */
export function withHeldEndpoints(event: InstanceEvent, registration: Registration | null, snapshot?: Pick<Instance, 'endpoints'>): InstanceEvent {
  if (event.type !== 'ENDPOINTS_DETECTED' || event instanceof EndpointsDetectedUnder) return event;
  const base = registration?.managementUrl ?? null;
  const ids = endpointIdsUnder(event.endpoints, base);
  if (ids) return new EndpointsDetectedUnder(event, base!, ids);
  const current = snapshot?.endpoints;
  if (event.endpoints === current) return event;
  const endpoints = current && sameEndpoints(current, event.endpoints) ? current : heldEndpoints(event.endpoints, registration);
  const { seq, ...rest } = event;
  return storedEvent({ ...rest, endpoints }, seq);
}

function sameEndpoints(a: readonly Endpoint[], b: readonly Endpoint[]): boolean {
  return a.length === b.length && a.every((endpoint, i) => endpoint.id === b[i]!.id && endpoint.url === b[i]!.url);
}

/** `url` is exactly `${base}/${id}`, checked without building that string. */
function isUnder(url: string, base: string, id: string): boolean {
  return url.length === base.length + 1 + id.length && url.charCodeAt(base.length) === 0x2f && url.startsWith(base) && url.endsWith(id);
}
