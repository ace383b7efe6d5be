import { buildVersionOf } from './build-version.js';
import { isEmptyObject } from './empty-object.js';
import { UNKNOWN_STATUS } from './status.js';
import { tagsOf } from './tags.js';
import type { Endpoint, Instance, InstanceEvent, Registration } from './types.js';

const EPOCH = new Date(0).toISOString();
const EMPTY: Readonly<Record<string, never>> = Object.freeze({});
const NO_ENDPOINTS: readonly Endpoint[] = Object.freeze([]);

/** The state of an id before its first event. */
export function emptyInstance(id: string): Instance {
  return {
    id,
    version: -1,
    registration: null,
    registered: false,
    statusInfo: UNKNOWN_STATUS,
    statusTimestamp: EPOCH,
    info: EMPTY,
    endpoints: NO_ENDPOINTS,
    buildVersion: null,
    tags: EMPTY,
  };
}

/**
 * Folds one event into the instance (SBA's `Instance.apply`). Pure: returns a new instance.
 * The rules for each field are those of reference §1.4-§1.5.
 */
export function applyEvent(instance: Instance, event: InstanceEvent): Instance {
  const version = event.version;
  switch (event.type) {
    case 'REGISTERED':
      return shaped(instance, {
        version,
        registration: event.registration,
        registered: true,
        statusInfo: UNKNOWN_STATUS,
        statusTimestamp: event.timestamp,
        info: EMPTY,
        endpoints: NO_ENDPOINTS,
        buildVersion: buildVersionOf(event.registration.metadata),
        tags: sharedTags(tagsOf(event.registration.metadata)),
      });
    case 'REGISTRATION_UPDATED':
      return shaped(instance, { version, registration: event.registration, ...derived(event.registration, instance.info) });
    case 'STATUS_CHANGED':
      return shaped(instance, {
        version,
        statusInfo: event.statusInfo,
        // A details-only change keeps the timestamp: it marks when the status string last moved.
        statusTimestamp: event.statusInfo.status === instance.statusInfo.status ? instance.statusTimestamp : event.timestamp,
      });
    case 'ENDPOINTS_DETECTED':
      return shaped(instance, { version, endpoints: event.endpoints });
    case 'INFO_CHANGED':
      return shaped(instance, { version, info: event.info, ...derived(instance.registration, event.info) });
    case 'DEREGISTERED':
      return shaped(instance, {
        version,
        registered: false,
        statusInfo: UNKNOWN_STATUS,
        statusTimestamp: event.timestamp,
        info: EMPTY,
        endpoints: NO_ENDPOINTS,
        buildVersion: null,
        tags: EMPTY,
      });
  }
}

/**
 * `instance` with `changes`, every field written out in one literal: one shape for all
 * snapshots, all fields inside the object. A spread (`{ ...instance, x }`) spills fields into a
 * separate property array, held for each of the node's instances (bench/REPORT.md, memory per instance).
 */
function shaped(instance: Instance, changes: Partial<Instance>): Instance {
  const pick = <K extends keyof Instance>(key: K): Instance[K] => (changes[key] !== undefined ? changes[key] as Instance[K] : instance[key]);
  return {
    id: instance.id,
    version: pick('version'),
    registration: pick('registration'),
    registered: pick('registered'),
    statusInfo: pick('statusInfo'),
    statusTimestamp: pick('statusTimestamp'),
    info: pick('info'),
    endpoints: pick('endpoints'),
    buildVersion: pick('buildVersion'),
    tags: pick('tags'),
  };
}

/** What a deregistered instance still holds besides its version: the rest is the same for every one. */
export interface RetiredDetails {
  readonly registration: Registration | null;
  readonly statusTimestamp: string;
}

export type RetiredState = RetiredDetails & { readonly version: number };

/**
 * A deregistered instance as DEREGISTERED leaves it, its details read only when asked for (from a
 * sealed history: most readers only look whether it is registered). The fields in their usual order.
 */
export function retiredInstance(id: string, version: number, read: () => RetiredDetails): Instance {
  let details: RetiredDetails | undefined;
  const detail = () => (details ??= read());
  return {
    id,
    version,
    get registration() { return detail().registration; },
    registered: false,
    statusInfo: UNKNOWN_STATUS,
    get statusTimestamp() { return detail().statusTimestamp; },
    info: EMPTY,
    endpoints: NO_ENDPOINTS,
    buildVersion: null,
    tags: EMPTY,
  };
}

/**
 * What `retiredInstance` rebuilds `instance` from, when it is as DEREGISTERED left it. Compared by
 * value: a snapshot read back from a shared log (JSON) holds copies of the shared empty values.
 */
export function retiredStateOf(instance: Instance): RetiredState | undefined {
  const { statusInfo } = instance;
  const asLeft = !instance.registered && statusInfo.status === UNKNOWN_STATUS.status && isEmptyObject(statusInfo.details) && isEmptyObject(instance.info)
    && instance.endpoints.length === 0 && instance.buildVersion === null && isEmptyObject(instance.tags);
  return asLeft ? { version: instance.version, registration: instance.registration, statusTimestamp: instance.statusTimestamp } : undefined;
}

/** An empty tag map is the shared one: most instances have no tags at all. */
function sharedTags(tags: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return isEmptyObject(tags) ? EMPTY : tags;
}

/** buildVersion and tags after a registration or info change: metadata wins the version, info wins tag clashes. */
function derived(registration: Registration | null, info: Readonly<Record<string, unknown>>) {
  const metadata = registration?.metadata;
  return {
    buildVersion: buildVersionOf(metadata) ?? buildVersionOf(info),
    tags: sharedTags({ ...tagsOf(metadata), ...tagsOf(info) }),
  };
}

/**
 * The endpoints as clients see them: the detected ones, with `health` always pointing at the
 * registered healthUrl while the instance is registered (SBA's Endpoints.withEndpoints).
 */
export function visibleEndpoints(instance: Instance): Endpoint[] {
  if (!instance.registered || !instance.registration) return [];
  const health: Endpoint = { id: 'health', url: instance.registration.healthUrl };
  return [health, ...instance.endpoints.filter((endpoint) => endpoint.id !== 'health')];
}

/** The URL of one visible endpoint, or undefined when it is not detected. */
export function endpointUrl(instance: Instance, id: string): string | undefined {
  return visibleEndpoints(instance).find((endpoint) => endpoint.id === id)?.url;
}
