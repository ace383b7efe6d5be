import { createHash } from 'node:crypto';

/**
 * The contract's rules for a registration body (CONTRACT §4, the SBA field aliases of
 * reference §1.1), written apart from the implementation so the fuzz suite can tell which
 * generated bodies must be accepted. Limits beyond the contract are Vigil's documented ones:
 * names up to 512 characters, URLs up to 4096, metadata objects nested up to 32 levels.
 */
export const LIMITS = { name: 512, url: 4096, metadataDepth: 32 } as const;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;
// eslint-disable-next-line no-control-regex
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/;

export type Verdict =
  | { readonly valid: true; readonly healthUrl: string }
  | { readonly valid: false };

export function judgeRegistration(body: unknown): Verdict {
  if (!isObject(body)) return { valid: false };
  const name = body.name;
  const nameOk = typeof name === 'string' && name.trim() !== '' && name.length <= LIMITS.name && !CONTROL.test(name);

  let health: unknown;
  let management: unknown;
  let service: unknown;
  if (body.url !== undefined && body.url !== null) {
    // The Boot 1.x form: one `url`, health under it.
    management = body.url;
    health = typeof body.url === 'string' ? `${body.url.replace(/\/+$/, '')}/health` : body.url;
    service = null;
  } else {
    health = body.healthUrl ?? body.health_url;
    management = body.managementUrl ?? body.management_url;
    service = body.serviceUrl ?? body.service_url;
  }
  const healthOk = health !== undefined && health !== null && health !== '' && isHttpUrl(health);
  const optionalOk = (value: unknown) => value === undefined || value === null || value === '' || isHttpUrl(value);
  const valid = nameOk && healthOk && optionalOk(management) && optionalOk(service) && metadataOk(body.metadata);
  return valid ? { valid: true, healthUrl: health as string } : { valid: false };
}

/** CONTRACT §4: the first 12 hex digits of the SHA-1 of the UTF-8 healthUrl. */
export function instanceIdFor(healthUrl: string): string {
  return createHash('sha1').update(healthUrl, 'utf8').digest('hex').slice(0, 12);
}

/**
 * An absolute http(s) URL with a host, as the WHATWG parser reads it, without raw spaces or
 * control characters, and written `http://host` or `https://host` (issue 14: the parser also
 * reads `http:user:pw@host`, whose password would then be echoed).
 */
function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string' || value.length > LIMITS.url || SPACE_OR_CONTROL.test(value)) return false;
  if (!/^https?:\/\/[^/\\]/i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

/** Strings, numbers, booleans and nulls, in objects nested at most `metadataDepth` levels; no arrays. */
function metadataOk(value: unknown): boolean {
  if (value === undefined || value === null) return true;
  if (!isObject(value)) return false;
  const pending: [Record<string, unknown>, number][] = [[value, 1]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [object, depth] = next;
    if (depth > LIMITS.metadataDepth) return false;
    for (const entry of Object.values(object)) {
      if (entry === null || ['string', 'number', 'boolean'].includes(typeof entry)) continue;
      if (!isObject(entry)) return false;
      pending.push([entry, depth + 1]);
    }
  }
  return true;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
