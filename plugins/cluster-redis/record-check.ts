import { instanceIdOf, type OutboxItem } from '../../core/plugin-api.js';
import {
  parseRegistration, type Endpoint, type Instance, type InstanceEvent, type InstanceEventType, type Registration, type StatusInfo,
} from '../../core/domain/index.js';
import { storedEvent, type NewEvent } from '../../core/event-log.js';

/**
 * What a record read from Redis must be before a node believes it. Whoever can write to Redis can
 * write anything there, so a record is checked as the API checks what a registrant sends: a
 * registration goes through the API's own parser (`parseRegistration`: the URL forms, lengths and
 * characters it refuses are refused here too) and must sit under the id its health URL gives;
 * every other field must have the type the registry holds. Only the fields the registry knows are
 * kept. Everything Vigil itself writes passes, so a refusal means a record written by hand (or
 * by something else).
 */
export type Checked<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly problem: string };

const EVENT_TYPES = new Set(['REGISTERED', 'REGISTRATION_UPDATED', 'STATUS_CHANGED', 'ENDPOINTS_DETECTED', 'INFO_CHANGED', 'DEREGISTERED']);

/** An event of instance `id` (the id the record is filed under), its `seq` as Redis numbered it. */
export function checkEvent(value: unknown, id: string, seq: number): Checked<InstanceEvent> {
  try {
    if (!isRecord(value)) return refuse('it is not a JSON object');
    if (value.instance !== id) return refuse(`it names instance ${JSON.stringify(String(value.instance)).slice(0, 40)} but is filed under ${id}`);
    const header = { instance: id, version: version(value.version, 0), timestamp: timestamp(value.timestamp, 'timestamp') };
    const type = value.type;
    if (typeof type !== 'string' || !EVENT_TYPES.has(type)) return refuse(`'type' ${JSON.stringify(String(type)).slice(0, 40)} is not an event type`);
    let event: NewEvent;
    switch (type) {
      case 'REGISTERED':
      case 'REGISTRATION_UPDATED':
        event = { ...header, type, registration: registration(value.registration, id) };
        break;
      case 'STATUS_CHANGED':
        event = { ...header, type, statusInfo: statusInfo(value.statusInfo) };
        break;
      case 'ENDPOINTS_DETECTED':
        event = { ...header, type, endpoints: endpoints(value.endpoints) };
        break;
      case 'INFO_CHANGED':
        event = { ...header, type, info: object(value.info, 'info') };
        break;
      default:
        event = { ...header, type: 'DEREGISTERED' };
    }
    return { ok: true, value: storedEvent(event, seq) };
  } catch (error) {
    return refuse((error as Error).message);
  }
}

/** The snapshot of instance `id` (the hash field it is filed under). */
export function checkSnapshot(value: unknown, id: string): Checked<Instance> {
  try {
    if (!isRecord(value)) return refuse('it is not a JSON object');
    if (value.id !== id) return refuse(`it names instance ${JSON.stringify(String(value.id)).slice(0, 40)} but is filed under ${id}`);
    if (typeof value.registered !== 'boolean') throw new Error("'registered' must be true or false");
    const held = value.registration === null ? null : registration(value.registration, id);
    if (value.registered && held === null) throw new Error('a registered instance must have a registration');
    const buildVersion = value.buildVersion;
    if (buildVersion !== null && typeof buildVersion !== 'string') throw new Error("'buildVersion' must be a string or null");
    const tags = object(value.tags, 'tags');
    if (!Object.values(tags).every((tag) => typeof tag === 'string')) throw new Error("'tags' must map names to strings");
    return {
      ok: true,
      value: {
        id,
        version: version(value.version, 0),
        registration: held,
        registered: value.registered,
        statusInfo: statusInfo(value.statusInfo),
        statusTimestamp: timestamp(value.statusTimestamp, 'statusTimestamp'),
        info: object(value.info, 'info'),
        endpoints: endpoints(value.endpoints),
        buildVersion,
        tags: tags as Record<string, string>,
      },
    };
  } catch (error) {
    return refuse((error as Error).message);
  }
}

/** An item of the notification outbox (the fields the append script wrote). */
export function checkOutboxItem(fields: Readonly<Record<string, string>>): Checked<OutboxItem> {
  try {
    const seq = Number(fields.q);
    if (!Number.isSafeInteger(seq) || seq < 1) throw new Error('its sequence number is not a whole number');
    const instance = fields.i;
    if (instance === undefined || instance === '') throw new Error('it names no instance');
    const type = fields.t;
    if (type === undefined || !EVENT_TYPES.has(type)) throw new Error(`'${String(type).slice(0, 40)}' is not an event type`);
    if (fields.f === undefined || fields.o === undefined) throw new Error('it lacks the statuses before and after');
    return {
      ok: true,
      value: {
        seq, instance, version: version(Number(fields.v), 0), type: type as InstanceEventType,
        timestamp: timestamp(fields.ts, 'timestamp'), from: fields.f, to: fields.o,
      },
    };
  } catch (error) {
    return refuse((error as Error).message);
  }
}

function refuse(problem: string): { ok: false; problem: string } {
  return { ok: false, problem };
}

/** The API's parser, with the source kept as stored; the id must be the one its health URL gives. */
function registration(value: unknown, id: string): Registration {
  if (!isRecord(value)) throw new Error("'registration' must be an object");
  const source = value.source;
  if (source !== null && typeof source !== 'string') throw new Error("'registration.source' must be a string or null");
  const { name, healthUrl, managementUrl, serviceUrl, metadata } = value;
  const parsed = parseRegistration({ name, healthUrl, managementUrl, serviceUrl, metadata }, source);
  if (!parsed.ok) throw new Error(`the registration would be refused by the API: ${parsed.problems.join('; ')}`);
  if (instanceIdOf(parsed.registration.healthUrl) !== id) throw new Error(`its health URL gives another instance id than ${id}`);
  return parsed.registration;
}

function statusInfo(value: unknown): StatusInfo {
  if (!isRecord(value) || typeof value.status !== 'string') throw new Error("'statusInfo' must be an object with a string 'status'");
  return { status: value.status, details: object(value.details, 'statusInfo.details') };
}

function endpoints(value: unknown): Endpoint[] {
  if (!Array.isArray(value)) throw new Error("'endpoints' must be an array");
  return value.map((entry: unknown) => {
    if (!isRecord(entry) || typeof entry.id !== 'string' || entry.id === '' || typeof entry.url !== 'string' || entry.url === '') {
      throw new Error("each endpoint must be an object with a non-empty string 'id' and 'url'");
    }
    return { id: entry.id, url: entry.url };
  });
}

function version(value: unknown, least: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < least) throw new Error(`'version' must be a whole number of at least ${least}`);
  return value;
}

function timestamp(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.length > 40 || Number.isNaN(Date.parse(value))) throw new Error(`'${field}' must be an ISO-8601 instant`);
  return value;
}

function object(value: unknown, field: string): Readonly<Record<string, unknown>> {
  if (!isRecord(value)) throw new Error(`'${field}' must be an object`);
  return value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
