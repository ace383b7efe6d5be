import type { Endpoint } from '../../core/domain/index.js';

/** Media types of an actuator index SBA accepts; plain `application/json` is not one (reference §5.1). */
const ACTUATOR_TYPES: ReadonlySet<string> = new Set([
  'application/vnd.spring-boot.actuator.v3+json',
  'application/vnd.spring-boot.actuator.v2+json',
]);

/** Whether a Content-Type header names an actuator v2/v3 body, parameters (charset) ignored. */
export function isActuatorIndexType(contentType: string): boolean {
  return ACTUATOR_TYPES.has(contentType.split(';')[0]!.trim().toLowerCase());
}

/**
 * The endpoints of an index body: each `_links` entry except `self` and templated ones (such as
 * `metrics-requiredMetricName`), hrefs kept exactly as given, relative ones included. Anything
 * that is not the expected shape yields no entry rather than an error: the next strategy runs.
 */
export function endpointsFromIndex(body: unknown): Endpoint[] {
  const links = isRecord(body) ? body._links : undefined;
  if (!isRecord(links)) return [];
  const endpoints: Endpoint[] = [];
  for (const [id, link] of Object.entries(links)) {
    if (id === 'self' || !isRecord(link) || link.templated === true || typeof link.href !== 'string') continue;
    endpoints.push({ id, url: link.href });
  }
  return endpoints;
}

/**
 * An instance behind a TLS-terminating proxy often builds `http:` links into an index served
 * over `https:`; SBA then switches every such href to https. `changed` tells whether it did.
 */
export function alignScheme(managementUrl: string, endpoints: readonly Endpoint[]): { endpoints: Endpoint[]; changed: boolean } {
  const secure = /^https:/i.test(managementUrl);
  if (!secure || !endpoints.some(({ url }) => /^http:/i.test(url))) return { endpoints: [...endpoints], changed: false };
  return { endpoints: endpoints.map(({ id, url }) => ({ id, url: url.replace(/^http:/i, 'https:') })), changed: true };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
