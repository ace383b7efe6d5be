import { isEmptyObject } from './empty-object.js';
import { isPacked, packRegistration } from './packed-registration.js';
import { statusInfo } from './status.js';
import type { Registration, StatusInfo } from './types.js';

/**
 * Info bodies, tag maps and metadata read from a shared log are each their own parse, though a
 * fleet's are mostly the same few: one value per distinct text, up to this many of each, each at
 * most MAX_SHARED_CHARS long (what the tables keep after the instances have gone stays small).
 */
const MAX_SHARED_VALUES = 256;
const MAX_SHARED_CHARS = 4096;
const sharedInfos = new Map<string, Readonly<Record<string, unknown>>>();
const sharedTagMaps = new Map<string, Readonly<Record<string, string>>>();
const sharedMetadata = new Map<string, Readonly<Record<string, string>>>();
/** Application names and registration sources: a few strings, each parsed once per instance. */
const MAX_SHARED_NAMES = 4096;
const sharedNames = new Map<string, string>();
/** Values looked up already (shared, or kept as they are): not serialised again on the instance's next event. */
const looked = new WeakSet<object>();

function sharedValue<T extends Readonly<Record<string, unknown>>>(table: Map<string, T>, value: T): T {
  if (looked.has(value) || isEmptyObject(value)) return value;
  const key = JSON.stringify(value);
  const known = table.get(key);
  if (known) return known;
  if (table.size < MAX_SHARED_VALUES && key.length <= MAX_SHARED_CHARS) table.set(key, value);
  looked.add(value);
  return value;
}

function sharedName(name: string): string {
  const known = sharedNames.get(name);
  if (known !== undefined) return known;
  if (sharedNames.size < MAX_SHARED_NAMES) sharedNames.set(name, name);
  return name;
}

/**
 * The registration with its name, source and metadata shared with the instances that have the
 * same, and its URLs packed when they allow it (`packRegistration`); its URLs are its own.
 */
export function sharedRegistration(registration: Registration): Registration {
  // A packed one was made here: the class says so, without an entry in `looked` per registration.
  if (isPacked(registration) || looked.has(registration)) return registration;
  const plain: Registration = {
    name: sharedName(registration.name),
    managementUrl: registration.managementUrl,
    healthUrl: registration.healthUrl,
    serviceUrl: registration.serviceUrl,
    source: registration.source === null ? null : sharedName(registration.source),
    metadata: sharedValue(sharedMetadata, registration.metadata),
  };
  const packed = packRegistration(plain);
  if (packed) return packed;
  looked.add(plain);
  return plain;
}

/** The shared value of a known status without details (`statusInfo`), or the same one. */
export function sharedStatus(value: StatusInfo): StatusInfo {
  if (!isEmptyObject(value.details)) return value;
  const bare = statusInfo(value.status);
  return bare.status === value.status ? bare : value;
}

/** An info body, shared with the instances that report the same (see sharedValue). */
export function sharedInfo(info: Readonly<Record<string, unknown>>): Readonly<Record<string, unknown>> {
  return sharedValue(sharedInfos, info);
}

/** A tag map, shared with the instances that have the same (see sharedValue). */
export function sharedTagMap(tags: Readonly<Record<string, string>>): Readonly<Record<string, string>> {
  return sharedValue(sharedTagMaps, tags);
}
