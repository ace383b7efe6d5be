import { joinUrl, type Endpoint } from '../../core/domain/index.js';

/** The metadata key a client fills with its endpoint ids (seed: "Endpoint detection", point 6). */
export const ENDPOINTS_KEY = 'endpoints';

/**
 * Reads `health,info, beans:custom-beans` into endpoints under `managementUrl`. Ids are trimmed and
 * empty entries skipped, because clients build this string by hand; `id:path` puts an endpoint at
 * another path, as `probed-endpoints` does. When an id repeats, the first entry wins.
 */
export function endpointsFromMetadata(value: string, managementUrl: string): Endpoint[] {
  const found = new Map<string, string>();
  for (const raw of value.split(',')) {
    const entry = raw.trim();
    const colon = entry.indexOf(':');
    const id = (colon < 0 ? entry : entry.slice(0, colon)).trim();
    const path = colon < 0 ? id : entry.slice(colon + 1).trim() || id;
    if (id === '' || found.has(id)) continue;
    found.set(id, joinUrl(managementUrl, path));
  }
  return [...found].map(([id, url]) => ({ id, url }));
}
