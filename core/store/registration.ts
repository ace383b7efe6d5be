import type { Registration } from './types.js';
import { isUrlOf } from './packed-registration.js';
import { maskUrlPassword } from './url-credentials.js';

export type ParseResult =
  | { readonly ok: true; readonly registration: Registration }
  | { readonly ok: false; readonly problems: readonly string[] };

const MAX_NAME = 512;
const MAX_URL = 4096;
/** Nested metadata is flattened recursively; a 1 MiB body could nest 200,000 deep and overflow the stack. */
export const MAX_METADATA_DEPTH = 32;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
const WHITESPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

/**
 * The registration held for an instance with this health URL, if any. Its URLs passed these
 * checks when it was accepted, so a heartbeat repeating them is not parsed as a URL again (the
 * WHATWG parser was the largest part of a heartbeat's own cost).
 */
export type HeldRegistrationOf = (healthUrl: string) => Registration | null | undefined;

/**
 * Reads a registration as SBA's RegistrationDeserializer does (reference §1.1): the camelCase
 * fields or their snake_case aliases, the legacy `url` form, metadata values as strings, the
 * `service-url` metadata override. Unlike SBA, every problem is reported, naming the field.
 */
export function parseRegistration(body: unknown, source: string | null, heldOf?: HeldRegistrationOf): ParseResult {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    return { ok: false, problems: ['the registration must be a JSON object'] };
  }
  const input = body as Record<string, unknown>;
  const problems: string[] = [];

  const name = input.name;
  if (name === undefined || name === null || (typeof name === 'string' && name.trim() === '')) {
    problems.push("'name' must not be empty");
  } else if (typeof name !== 'string') {
    problems.push(`'name' must be a string, got ${typeName(name)}`);
  } else if (name.length > MAX_NAME) {
    problems.push(`'name' must be at most ${MAX_NAME} characters`);
  } else if (CONTROL.test(name)) {
    problems.push("'name' must not contain control characters");
  }

  const legacyUrl = input.url;
  let healthUrl: unknown;
  let managementUrl: unknown;
  let serviceUrl: unknown;
  if (legacyUrl !== undefined && legacyUrl !== null) {
    // Boot 1.x clients send one `url`: management there, health under it, no service URL.
    managementUrl = legacyUrl;
    healthUrl = typeof legacyUrl === 'string' ? `${legacyUrl.replace(/\/+$/, '')}/health` : legacyUrl;
    serviceUrl = null;
  } else {
    healthUrl = input.healthUrl ?? input.health_url;
    managementUrl = input.managementUrl ?? input.management_url;
    serviceUrl = input.serviceUrl ?? input.service_url;
  }

  const held = heldOf && typeof healthUrl === 'string' && healthUrl !== '' && healthUrl.length <= MAX_URL ? heldOf(healthUrl) ?? undefined : undefined;
  if (healthUrl === undefined || healthUrl === null || healthUrl === '') {
    problems.push("'healthUrl' must not be empty");
  } else {
    checkUrl('healthUrl', healthUrl, problems, held);
  }
  const management = optionalUrl('managementUrl', managementUrl, problems, held);
  let service = optionalUrl('serviceUrl', serviceUrl, problems, held);
  const metadata = parseMetadata(input.metadata, problems);

  if (problems.length > 0) return { ok: false, problems };

  // SBA: metadata `service-url` replaces a given serviceUrl; Vigil takes only an absolute http(s) one.
  const override = metadata['service-url'];
  if (service !== null && override !== undefined && isHttpUrl(override)) service = override;

  return {
    ok: true,
    registration: {
      name: name as string,
      managementUrl: management,
      healthUrl: healthUrl as string,
      serviceUrl: service,
      source,
      metadata,
    },
  };
}

function optionalUrl(field: string, value: unknown, problems: string[], held: Registration | undefined): string | null {
  if (value === undefined || value === null || value === '') return null;
  return checkUrl(field, value, problems, held) ? (value as string) : null;
}

function checkUrl(field: string, value: unknown, problems: string[], held: Registration | undefined): boolean {
  if (typeof value !== 'string') {
    problems.push(`'${field}' must be a string, got ${typeName(value)}`);
    return false;
  }
  if (value.length > MAX_URL) {
    problems.push(`'${field}' must be at most ${MAX_URL} characters`);
    return false;
  }
  if (held && isUrlOf(held, value)) return true;
  if (!isHttpUrl(value)) {
    problems.push(`'${field}' is not valid: ${JSON.stringify(maskUrlPassword(value))} is not an absolute http(s) URL (http://host/... or https://host/...)`);
    return false;
  }
  return true;
}

/**
 * An absolute http(s) URL with a host, written the one way a person means it: `http://` or
 * `https://`. The WHATWG parser also reads `http:host`, `http:/host` and `http:\\host` as http
 * URLs, and in `http:user:pw@host` finds a password that a looser check would then echo in clear.
 */
const HTTP_PREFIX = /^https?:\/\/(?![/\\])/i;

export function isHttpUrl(value: string): boolean {
  if (WHITESPACE_OR_CONTROL.test(value) || !HTTP_PREFIX.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * Metadata is a flat string map (SBA's Map<String,String>). Numbers and booleans become their
 * text; nested objects, which SBA's docs show for `tags` but its server drops, are flattened to
 * dotted keys (`{"tags":{"env":"prod"}}` → `tags.env`), so such clients keep their tags.
 */
function parseMetadata(value: unknown, problems: string[]): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push(`'metadata' must be an object of strings, got ${typeName(value)}`);
    return {};
  }
  const metadata: Record<string, string> = {};
  const flatten = (object: object, prefix: string, depth: number): boolean => {
    if (depth > MAX_METADATA_DEPTH) {
      problems.push(`'metadata' must not nest objects more than ${MAX_METADATA_DEPTH} levels deep`);
      return false;
    }
    for (const [key, entry] of Object.entries(object)) {
      const path = `${prefix}${key}`;
      if (typeof entry === 'string') metadata[path] = entry;
      else if (typeof entry === 'number' || typeof entry === 'boolean') metadata[path] = String(entry);
      else if (entry === null) continue;
      else if (typeof entry === 'object' && !Array.isArray(entry)) {
        if (!flatten(entry, `${path}.`, depth + 1)) return false;
      } else problems.push(`'metadata.${path}' must be a string, number, boolean or object, got ${typeName(entry)}`);
    }
    return true;
  };
  flatten(value, '', 1);
  return metadata;
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
